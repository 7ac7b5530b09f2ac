import { createHash } from 'node:crypto';
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { subscribedClusters } from '../shared/config/cluster-labels.ts';
import { subscriberKey } from '../shared/config/config-verdict.ts';
import { type DeploymentConfig, isDeliveredSubscriber, type Subscriber } from '../shared/config/deployment-config.ts';
import { clusterFilterPolicy, smsKindFilterPolicy, withoutPipelineAlarmsFilterPolicy } from './cluster-filter.ts';

export type TopicRole = 'paging' | 'notice' | 'digest';

const AWS_MANAGED_SNS_KEY = 'alias/aws/sns';

export interface NotificationTopicsProps {
  readonly config: DeploymentConfig;
  /** Physical topic names, known before the topics exist so the key policy can name them. */
  readonly topicNames: Readonly<Record<TopicRole, string>>;
  readonly alarmNamePrefix: string;
  /** The deployment's key; without one, see `topic` below. */
  readonly key: kms.IKey | undefined;
  /** Where SNS puts a notification it could not deliver to a subscriber after its retries. */
  readonly deadLetterQueue: sqs.IQueue;
}

/**
 * PagerDuty, Opsgenie and similar endpoints are retried for about five minutes before the notification goes to the
 * dead-letter queue (whose alarm pages through the other subscribers).
 */
const HTTPS_DELIVERY_POLICY: sns.DeliveryPolicy = {
  healthyRetryPolicy: {
    numRetries: 10,
    minDelayTarget: Duration.seconds(5),
    maxDelayTarget: Duration.seconds(60),
    backoffFunction: sns.BackoffFunction.EXPONENTIAL,
  },
};

/**
 * The three topics on-call hears from, encrypted at rest and refusing unencrypted publishing:
 * `paging` (pages and their updates, plus the pipeline's own alarms), `notice` (tickets) and `digest` (the weekly
 * email). Subscriptions come from the configuration; a subscription limited to some clusters filters on the `cluster`
 * message attribute.
 *
 * Subscription ids are derived from the endpoint, not from the position in the file, so reordering the configuration
 * does not replace subscriptions (which would send every email subscriber a new confirmation request).
 */
export class NotificationTopics extends Construct {
  readonly paging: sns.Topic;
  readonly notice: sns.Topic;
  readonly digest: sns.Topic;

  constructor(scope: Construct, id: string, props: NotificationTopicsProps) {
    super(scope, id);
    const topic = (role: TopicRole, displayName: string) => {
      const created = new sns.Topic(this, `${role[0]?.toUpperCase()}${role.slice(1)}Topic`, {
        topicName: props.topicNames[role],
        displayName,
        masterKey: props.key,
        enforceSSL: true,
      });
      // Without the deployment's key (`encryption.key: aws-managed`), SNS's AWS managed key, which needs no grant of
      // ours. Not on the paging topic: CloudWatch alarms cannot publish to a topic encrypted with it, since its key
      // policy cannot let them (https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html), so the paging
      // topic is then not encrypted at rest (docs/deploy.md, What it costs).
      if (!props.key && role !== 'paging') {
        (created.node.defaultChild as sns.CfnTopic).kmsMasterKeyId = AWS_MANAGED_SNS_KEY;
      }
      return created;
    };
    this.paging = topic('paging', 'K8s Sentinel page');
    this.notice = topic('notice', 'K8s Sentinel notice');
    this.digest = topic('digest', 'K8s Sentinel digest');

    const stack = Stack.of(this);
    // enforceSSL gives the topic a policy of its own, which replaces the default one: CloudWatch alarms (a service
    // principal, with no IAM policy of ours to rely on) need an explicit allow to page.
    this.paging.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisDeploymentPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.paging.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: `${props.alarmNamePrefix}*`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );

    // buildSentinelApp has already asked configVerdict, which refuses a subscriber twice on one topic or a filter
    // SNS would reject; a duplicate that got here anyway fails on its construct id.
    for (const role of ['paging', 'notice'] as const) {
      const topicOfRole = role === 'paging' ? this.paging : this.notice;
      for (const subscription of props.config.subscriptions[role]) {
        const clusters = subscribedClusters(subscription, props.config);
        const filterPolicy = clusters ? clusterFilterPolicy(clusters) : undefined;
        // PagerDuty, Opsgenie and webhooks whose URL is a secret are called by the delivery function
        // (infra/paging-delivery.ts), not by SNS: a subscription's endpoint is readable by whoever may list it.
        for (const subscriber of subscription.subscribers.filter((s) => !isDeliveredSubscriber(s))) {
          const smsOnPaging = role === 'paging' && subscriber.protocol === 'sms';
          // A cluster filter keeps the alarms off already: they carry no cluster.
          const alarms = role !== 'paging' || subscription.pipelineAlarms || clusters !== undefined;
          const policy = smsOnPaging
            ? { ...filterPolicy, ...smsKindFilterPolicy(subscription.pipelineAlarms) }
            : alarms
              ? filterPolicy
              : withoutPipelineAlarmsFilterPolicy();
          this.subscribe(topicOfRole, role, subscriber, props.deadLetterQueue, policy);
        }
      }
    }
    for (const email of props.config.digest.recipients) {
      this.subscribe(this.digest, 'digest', { protocol: 'email', endpoint: email }, props.deadLetterQueue);
    }
  }

  private subscribe(
    topic: sns.Topic,
    role: TopicRole,
    subscriber: Subscriber,
    deadLetterQueue: sqs.IQueue,
    filterPolicy?: Record<string, sns.SubscriptionFilter>,
  ): void {
    const key = subscriberKey(subscriber);
    const id = `${role}-${subscriber.protocol}-${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
    new sns.Subscription(this, id, {
      topic,
      ...endpointOf(subscriber),
      filterPolicy,
      deadLetterQueue,
    });
  }
}

function endpointOf(subscriber: Subscriber): Pick<sns.SubscriptionProps, 'protocol' | 'endpoint' | 'deliveryPolicy'> {
  switch (subscriber.protocol) {
    case 'email':
      return { protocol: sns.SubscriptionProtocol.EMAIL, endpoint: subscriber.endpoint };
    case 'sms':
      return { protocol: sns.SubscriptionProtocol.SMS, endpoint: subscriber.endpoint };
    case 'pagerduty':
    case 'opsgenie':
    case 'jsm':
      throw new Error(`unreachable: ${subscriber.protocol} is delivered by the delivery function, not SNS`);
    case 'https':
      if (subscriber.endpoint === undefined) {
        throw new Error('unreachable: an https subscriber with endpointSecret is delivered by the delivery function');
      }
      return {
        protocol: sns.SubscriptionProtocol.HTTPS,
        endpoint: subscriber.endpoint,
        deliveryPolicy: HTTPS_DELIVERY_POLICY,
      };
  }
}
