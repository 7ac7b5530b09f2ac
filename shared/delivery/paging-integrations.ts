import { subscribedClusters } from '../config/cluster-labels.ts';
import {
  type DeploymentConfig,
  isVendorSubscriber,
  type SecretReference,
  type VendorSubscriber,
} from '../config/deployment-config.ts';
import type { Notification } from '../engine/notification.ts';
import { isTestPage } from '../notify/test-page.ts';
import { isPipelineAlarm } from './pipeline-alarm.ts';

/** A PagerDuty service, Opsgenie team or Jira Service Management team that the delivery function pages through its API. */
export interface PagingIntegration {
  /**
   * Names the integration in the delivery records and the logs: its protocol and the secret that holds its key, never
   * the key. Stable across deploys and reorderings of the configuration.
   */
  readonly id: string;
  readonly subscriber: VendorSubscriber;
  /**
   * Only notifications about one of these clusters reach it, when given (as an SNS filter policy would): the clusters
   * its subscription names or its labels match.
   */
  readonly clusters?: readonly string[];
  /** Whether it is paged by the pipeline's own alarms (the subscription's `pipelineAlarms`); unset, it is. */
  readonly pipelineAlarms?: boolean;
}

/** The PagerDuty and Opsgenie subscribers of the paging topic (the configuration verdict keeps them off the others). */
export function pagingIntegrations(config: DeploymentConfig): PagingIntegration[] {
  return config.subscriptions.paging.flatMap((subscription) => {
    const clusters = subscribedClusters(subscription, config);
    return subscription.subscribers.filter(isVendorSubscriber).map((subscriber) => ({
      id: integrationId(subscriber),
      subscriber,
      ...(clusters && { clusters }),
      pipelineAlarms: subscription.pipelineAlarms,
    }));
  });
}

/** The secret holding an integration's key: PagerDuty's routing key, Opsgenie's or JSM's API key. */
export function keySecretOf(subscriber: VendorSubscriber): SecretReference {
  return subscriber.protocol === 'pagerduty' ? subscriber.routingKeySecret : subscriber.apiKeySecret;
}

function integrationId(subscriber: VendorSubscriber): string {
  const { secretName, jsonField } = keySecretOf(subscriber);
  return `${subscriber.protocol}:${secretName}${jsonField ? `#${jsonField}` : ''}`;
}

/**
 * The integrations a notification goes to: those without a cluster filter, and those naming one of its clusters. A
 * fleet page cut to fit SNS's limit does not name every cluster; like the SNS filter, which matches the marker such a
 * page ends its cluster attribute with, it then goes to every integration; so does a test page, which is about every
 * cluster. A pipeline alarm goes to those that take them (`pipelineAlarms`), whatever their clusters.
 */
export function integrationsFor(
  notification: Notification,
  integrations: readonly PagingIntegration[],
  clustersOmitted = false,
): PagingIntegration[] {
  if (isPipelineAlarm(notification)) return integrations.filter((integration) => integration.pipelineAlarms !== false);
  return integrations.filter(
    (integration) =>
      integration.clusters === undefined ||
      clustersOmitted ||
      isTestPage(notification) ||
      notification.clusters.some((c) => integration.clusters?.includes(c)),
  );
}
