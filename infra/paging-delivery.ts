import { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { keySecretOf, type PagingIntegration } from '../shared/delivery/paging-integrations.ts';
import { FUNCTION_ACCESS } from './function-access.ts';
import { bindSecretReads, bindTable, SentinelFunction } from './sentinel-function.ts';
import { workOff, workQueue } from './work-queue.ts';

export interface PagingDeliveryProps {
  readonly integrations: readonly PagingIntegration[];
  readonly topic: sns.ITopic;
  /** The notice topic, which the queue also reads when a webhook whose URL is a secret subscribes to it. */
  readonly noticeTopic: sns.ITopic;
  readonly table: dynamodb.ITable;
  /** The deployment's key; without one, SQS's own (SSE-SQS), which SNS can send to. */
  readonly key: kms.IKey | undefined;
  /** The deployment's one dead-letter queue: a notification that keeps failing waits there, and its depth pages. */
  readonly deadLetterQueue: sqs.IQueue;
  readonly configFile: string;
}

/** A delivery run: two vendor calls of at most about 20 s each (aws/vendors/http.ts), with room to spare. */
const DELIVERY_TIMEOUT = Duration.seconds(60);

/** The delivery function's memory and timeout. */
export const DELIVERY_LIMITS = { memorySize: 256, timeout: DELIVERY_TIMEOUT } as const;

/**
 * SQS shows a message again this long after a run received it; AWS asks for at least six times the function timeout
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html#events-sqs-queueconfig).
 */
const VISIBILITY_TIMEOUT = Duration.seconds(DELIVERY_TIMEOUT.toSeconds() * 6);

/** Five runs, about half an hour apart from the first to the last, before a notification goes to the dead letters. */
const MAX_RECEIVE_COUNT = 5;

/**
 * Native PagerDuty, Opsgenie and Jira Service Management delivery, and webhooks whose URL is a secret: a queue
 * subscribed to the paging topic with raw message delivery (each message is the notification JSON, SNS's `sqs` body)
 * and a filter on the `kind` attribute (the pipeline's own CloudWatch alarms carry none: they reach this queue from
 * EventBridge instead, `pageOnAlarms`), a function that calls the vendors' APIs and posts to the webhooks, and the
 * deployment's dead-letter queue behind it.
 */
export class PagingDelivery extends Construct {
  readonly queue: sqs.Queue;
  readonly function: SentinelFunction;

  constructor(scope: Construct, id: string, props: PagingDeliveryProps) {
    super(scope, id);
    this.queue = workQueue(this, 'Queue', {
      key: props.key,
      deadLetterQueue: props.deadLetterQueue,
      visibilityTimeout: VISIBILITY_TIMEOUT,
      retentionPeriod: Duration.days(4),
      maxReceiveCount: MAX_RECEIVE_COUNT,
    });
    // Not CDK's SqsSubscription: it would add a key policy statement naming the topic, whose own encryption with the
    // same key makes a cycle. The key already lets SNS use it for this deployment's topics (infra/sentinel-key.ts).
    // The delivery function tells the topics' notifications apart by their severity, as the poller picks the topic.
    const topics = [props.topic, ...(props.integrations.some((i) => i.topic === 'notice') ? [props.noticeTopic] : [])];
    topics.forEach((topic, index) => {
      new sns.Subscription(this, index === 0 ? 'Subscription' : 'NoticeSubscription', {
        topic,
        protocol: sns.SubscriptionProtocol.SQS,
        endpoint: this.queue.queueArn,
        rawMessageDelivery: true,
        filterPolicy: { kind: sns.SubscriptionFilter.existsFilter() },
        deadLetterQueue: props.deadLetterQueue,
      });
    });
    this.queue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'PagingTopicDelivers',
        principals: [new iam.ServicePrincipal('sns.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn],
        conditions: {
          ArnEquals: { 'aws:SourceArn': topics.length === 1 ? props.topic.topicArn : topics.map((t) => t.topicArn) },
        },
      }),
    );

    this.function = new SentinelFunction(this, 'Delivery', {
      entry: 'functions/delivery/handler.ts',
      description:
        'k8s-incident-sentinel delivery: pages, updates and resolves to PagerDuty, Opsgenie and secret webhooks',
      ...DELIVERY_LIMITS,
      configFile: props.configFile,
      key: props.key,
      // Invoked by the SQS event source, synchronously: these only apply to asynchronous invocations.
      deadLetterQueue: props.deadLetterQueue,
      retryAttempts: 0,
      maxEventAge: Duration.minutes(1),
    });
    workOff(this.function, this.queue, { batchSize: 10, reportBatchItemFailures: true });
    bindTable(this.function, props.table, FUNCTION_ACCESS.delivery.table);
    bindSecretReads(
      this.function,
      'ReadVendorKeys',
      props.integrations.map(({ subscriber }) => keySecretOf(subscriber)),
      FUNCTION_ACCESS.delivery,
    );
  }

  /**
   * The pipeline's own alarms page through the integrations too: their state changes to ALARM and OK, as EventBridge
   * receives them from CloudWatch, go into the delivery queue, which turns each into a page or a resolve
   * (shared/delivery/pipeline-alarm.ts). EventBridge rather than the paging topic: its event names the alarm, both
   * states and their times in documented fields
   * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch-and-eventbridge.html), where an alarm's
   * SNS message carries no attribute a filter could tell from a notification; and a failure of the alarm's SNS action
   * (the topic's key policy, SNS itself) does not silence this path too. The alarms are named one by one: their
   * common prefix also starts every tripwire alarm's name, and eight names stay far inside EventBridge's 2,048
   * characters of pattern (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-quota.html).
   */
  pageOnAlarms(alarms: readonly cloudwatch.IAlarm[], deadLetterQueue: sqs.IQueue): events.Rule {
    return new events.Rule(this, 'PipelineAlarms', {
      description:
        "k8s-incident-sentinel: the pipeline's own alarms, to PagerDuty, Opsgenie and Jira Service Management",
      eventPattern: {
        source: ['aws.cloudwatch'],
        detailType: ['CloudWatch Alarm State Change'],
        detail: { alarmName: alarms.map((alarm) => alarm.alarmName), state: { value: ['ALARM', 'OK'] } },
      },
      targets: [
        new targets.SqsQueue(this.queue, { deadLetterQueue, retryAttempts: 5, maxEventAge: Duration.hours(1) }),
      ],
    });
  }
}
