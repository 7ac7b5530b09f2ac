import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SQS_SHARD_MESSAGE } from '../aws/sqs/shard-message.ts';
import { SHARD_SIZE, SHARD_WORKERS } from '../shared/pipeline/shards.ts';
import { FUNCTION_ACCESS } from './function-access.ts';
import { bindMetricReads, bindTable, KEY_USE, SentinelFunction } from './sentinel-function.ts';
import { workOff, workQueue } from './work-queue.ts';

export interface ShardWorkersProps {
  /** The poller, which sends the shards of a step too large for it to the queue and waits for their findings. */
  readonly poller: SentinelFunction;
  readonly table: dynamodb.ITable;
  /** The deployment's key; without one, SQS's own (SSE-SQS). */
  readonly key: kms.IKey | undefined;
  /** The deployment's one dead-letter queue: a shard that keeps failing waits there, and its depth pages. */
  readonly deadLetterQueue: sqs.IQueue;
  readonly configFile: string;
}

/**
 * A shard's reads take a fifth of the region's quotas for a few seconds, and its evaluation about 9 s of a 512 MB
 * worker's CPU (docs/scaling.md); 40 s is the most the poller waits for it.
 */
const WORKER_TIMEOUT = Duration.seconds(40);

/** The shard worker's memory and timeout. */
export const SHARD_WORKER_LIMITS = { memorySize: 512, timeout: WORKER_TIMEOUT } as const;

/** At least six times the function timeout, as AWS asks of an SQS event source's queue. */
const VISIBILITY_TIMEOUT = Duration.seconds(WORKER_TIMEOUT.toSeconds() * 6);

/** Past its minute a shard is of no use to the poller, which counted its clusters unreadable: two tries, then gone. */
const MAX_RECEIVE_COUNT = 2;

/**
 * The fan-out of a step larger than one shard (shared/pipeline/shards.ts): a queue the poller sends one message per
 * shard to, and a worker function the queue's event source mapping invokes one shard at a time, at most
 * `SHARD_WORKERS` at once (`maximumConcurrency`), so that the fleet's reads stay under the region's GetMetricData
 * quotas. The stack builds it only for a fleet larger than one shard: a smaller fleet never fans out, and would pay
 * the event source mapping's idle long polling for nothing.
 */
export class ShardWorkers extends Construct {
  readonly queue: sqs.Queue;
  readonly function: SentinelFunction;

  constructor(scope: Construct, id: string, props: ShardWorkersProps) {
    super(scope, id);
    this.queue = workQueue(this, 'Queue', {
      key: props.key,
      deadLetterQueue: props.deadLetterQueue,
      visibilityTimeout: VISIBILITY_TIMEOUT,
      // A shard is for one minute: one kept for longer would only be evaluated after its poll gave up on it.
      retentionPeriod: Duration.minutes(5),
      maxReceiveCount: MAX_RECEIVE_COUNT,
      // The line the poller deals its shards under, set on the queue too: one number for both.
      maxMessageSizeBytes: SQS_SHARD_MESSAGE.maxMessageBytes,
    });

    this.function = new SentinelFunction(this, 'Worker', {
      entry: 'functions/shard-worker/handler.ts',
      description: 'k8s-incident-sentinel shard worker: reads and evaluates one shard of a large step',
      ...SHARD_WORKER_LIMITS,
      configFile: props.configFile,
      key: props.key,
      // Invoked by the SQS event source, synchronously: these only apply to asynchronous invocations.
      deadLetterQueue: props.deadLetterQueue,
      retryAttempts: 0,
      maxEventAge: Duration.minutes(1),
    });
    workOff(this.function, this.queue, { batchSize: 1, maxConcurrency: SHARD_WORKERS });
    const access = FUNCTION_ACCESS.shardWorker;
    bindTable(this.function, props.table, access.table);
    bindMetricReads(this.function, access.metrics);

    const { poller } = props;
    poller.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: [...FUNCTION_ACCESS.poller.queues], resources: [this.queue.queueArn] }),
    );
    poller.useKey(this.queue.encryptionMasterKey, KEY_USE.queue);
    poller.addEnvironment('SENTINEL_SHARD_QUEUE_URL', this.queue.queueUrl);
    poller.addEnvironment('SENTINEL_SHARD_SIZE', String(SHARD_SIZE));
    // The worker reads the messages of this release and of the one before; the poller sends this release's. Updating
    // the worker first means no worker is ever sent a message it cannot read, so an upgrade dead-letters nothing.
    poller.function.node.addDependency(this.function.function);
  }
}
