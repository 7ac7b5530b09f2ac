import { type Duration, Validations } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { SentinelFunction } from './sentinel-function.ts';

export interface WorkQueueProps {
  /** The deployment's key; without one, SQS's own (SSE-SQS). */
  readonly key: kms.IKey | undefined;
  /** The deployment's one dead-letter queue: a message that keeps failing waits there, and its depth pages. */
  readonly deadLetterQueue: sqs.IQueue;
  readonly visibilityTimeout: Duration;
  readonly retentionPeriod: Duration;
  readonly maxReceiveCount: number;
  /**
   * The largest message the queue takes, from 1,024 bytes to 1 MiB; unset, SQS's default for the attribute, 1 MiB
   * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html).
   */
  readonly maxMessageSizeBytes?: number;
}

/** A queue a function of the deployment works off: encrypted as the deployment's other queues, TLS only, redriven. */
export function workQueue(scope: Construct, id: string, props: WorkQueueProps): sqs.Queue {
  return new sqs.Queue(scope, id, {
    ...(props.key
      ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: props.key }
      : { encryption: sqs.QueueEncryption.SQS_MANAGED }),
    enforceSSL: true,
    visibilityTimeout: props.visibilityTimeout,
    retentionPeriod: props.retentionPeriod,
    deadLetterQueue: { queue: props.deadLetterQueue, maxReceiveCount: props.maxReceiveCount },
    ...(props.maxMessageSizeBytes !== undefined && { maxMessageSizeBytes: props.maxMessageSizeBytes }),
  });
}

/** Have the queue's event source mapping invoke the function, whose failures the queue's redrive takes care of. */
export function workOff(
  fn: SentinelFunction,
  queue: sqs.IQueue,
  source: ConstructorParameters<typeof SqsEventSource>[1],
) {
  fn.function.addEventSource(new SqsEventSource(queue, source));
  Validations.of(fn.function).acknowledge({
    id: 'Serverless-LambdaEventSourceMappingDestination',
    reason:
      "Lambda takes no on-failure destination for an SQS event source: a record that keeps failing goes to the deployment's dead-letter queue after maxReceiveCount, and that queue's depth pages.",
  });
}
