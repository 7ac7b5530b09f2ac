import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export interface DeadLetterQueueProps {
  /** The deployment's key; without one, SQS's own (SSE-SQS), which SNS, EventBridge and Scheduler can send to. */
  readonly key: kms.IKey | undefined;
}

/**
 * Where something the pipeline gave up on waits for a human: encrypted at rest, TLS only, kept for
 * the longest time SQS allows. Its depth is alarmed by SelfMonitoring.
 */
export class DeadLetterQueue extends sqs.Queue {
  constructor(scope: Construct, id: string, props: DeadLetterQueueProps) {
    super(scope, id, {
      ...(props.key
        ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: props.key }
        : { encryption: sqs.QueueEncryption.SQS_MANAGED }),
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    const reason =
      'This queue is itself a dead-letter queue; a queue behind it would only move the problem. Its depth is alarmed and pages on-call.';
    Validations.of(this).acknowledge(
      { id: 'AwsSolutions-SQS3', reason },
      { id: 'Serverless-SQSRedrivePolicy', reason },
    );
  }
}

/**
 * The alarm on a dead-letter queue's depth: any message waiting, at the most of five minutes. Missing data (SQS sends
 * none for an idle queue) is nothing waiting.
 */
export function messagesWaiting(
  queue: sqs.IQueue,
): Pick<
  cloudwatch.AlarmProps,
  'metric' | 'threshold' | 'comparisonOperator' | 'evaluationPeriods' | 'treatMissingData'
> {
  return {
    metric: queue.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(5),
      statistic: cloudwatch.Stats.MAXIMUM,
    }),
    threshold: 0,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  };
}
