import { subscribedClusters } from '../config/cluster-labels.ts';
import {
  type DeliveredSubscriber,
  type DeploymentConfig,
  isDeliveredSubscriber,
  type SecretReference,
  secretStoreOf,
} from '../config/deployment-config.ts';
import { type Notification, type NotificationTopic, topicOf } from '../engine/notification.ts';
import { isTestPage } from '../notify/test-page.ts';
import { isPipelineAlarm } from './pipeline-alarm.ts';

/**
 * A PagerDuty service, Opsgenie team or Jira Service Management team that the delivery function pages through its API,
 * or a webhook whose URL is a secret, which it posts to.
 */
export interface PagingIntegration {
  /**
   * Names the integration in the delivery records and the logs: its protocol and the secret or parameter that holds
   * its key or URL, never what it holds. Stable across deploys and reorderings of the configuration.
   */
  readonly id: string;
  readonly subscriber: DeliveredSubscriber;
  /** The topic whose notifications it gets: always `paging` but for a webhook subscribed to the notice topic. */
  readonly topic: NotificationTopic;
  /**
   * Only notifications about one of these clusters reach it, when given (as an SNS filter policy would): the clusters
   * its subscription names or its labels match.
   */
  readonly clusters?: readonly string[];
  /** Whether it is paged by the pipeline's own alarms (the subscription's `pipelineAlarms`); unset, it is. */
  readonly pipelineAlarms?: boolean;
}

/**
 * The subscribers the delivery function calls: PagerDuty, Opsgenie and JSM on the paging topic (the configuration
 * verdict keeps them off the others), and webhooks whose URL is a secret on either topic.
 */
export function pagingIntegrations(config: DeploymentConfig): PagingIntegration[] {
  return (['paging', 'notice'] as const).flatMap((topic) =>
    config.subscriptions[topic].flatMap((subscription) => {
      const clusters = subscribedClusters(subscription, config);
      return subscription.subscribers.filter(isDeliveredSubscriber).map((subscriber) => ({
        id: integrationId(subscriber, topic),
        subscriber,
        topic,
        ...(clusters && { clusters }),
        pipelineAlarms: subscription.pipelineAlarms,
      }));
    }),
  );
}

/**
 * The secret or parameter an integration reads at run time: PagerDuty's routing key, Opsgenie's or JSM's API key, a
 * webhook's URL.
 */
export function keySecretOf(subscriber: DeliveredSubscriber): SecretReference {
  switch (subscriber.protocol) {
    case 'pagerduty':
      return subscriber.routingKeySecret;
    case 'https':
      return subscriber.endpointSecret;
    default:
      return subscriber.apiKeySecret;
  }
}

function integrationId(subscriber: DeliveredSubscriber, topic: NotificationTopic): string {
  const reference = keySecretOf(subscriber);
  const { store, name } = secretStoreOf(reference);
  // Ids of paging integrations are as they were before notice webhooks and parameters existed: delivery records are
  // keyed on them. A secret's name has no ":", so a parameter's id cannot be taken for a secret's.
  const protocol = topic === 'paging' ? subscriber.protocol : `${subscriber.protocol}-${topic}`;
  const kept = store === 'secret' ? name : `parameter:${name}`;
  return `${protocol}:${kept}${reference.jsonField ? `#${reference.jsonField}` : ''}`;
}

/**
 * The integrations a notification goes to: those of the topic it is published to, without a cluster filter or naming
 * one of its clusters. A fleet page cut to fit SNS's limit does not name every cluster; like the SNS filter, which
 * matches the marker such a page ends its cluster attribute with, it then goes to every integration of its topic; so
 * does a test page, which is about every cluster. A pipeline alarm goes to the paging topic's integrations that take
 * them (`pipelineAlarms`), whatever their clusters.
 */
export function integrationsFor(
  notification: Notification,
  integrations: readonly PagingIntegration[],
  clustersOmitted = false,
): PagingIntegration[] {
  if (isPipelineAlarm(notification)) {
    return integrations.filter((integration) => integration.topic === 'paging' && integration.pipelineAlarms !== false);
  }
  const topic = topicOf(notification);
  return integrations.filter(
    (integration) =>
      integration.topic === topic &&
      (integration.clusters === undefined ||
        clustersOmitted ||
        isTestPage(notification) ||
        notification.clusters.some((c) => integration.clusters?.includes(c))),
  );
}
