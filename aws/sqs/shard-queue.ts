import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { SentinelError } from '../../shared/errors.ts';
import type { ShardMessage, ShardQueue } from '../../shared/pipeline/shards.ts';
import { SQS_SHARD_MESSAGE } from './shard-message.ts';

/** What this module sends: the shards of a step, in batches. */
export const IAM_ACTIONS = ['sqs:SendMessage'] as const;

/**
 * SendMessageBatch takes at most 10 messages and 1 MiB, 1,048,576 bytes, in all
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html), whatever the
 * queue's `MaximumMessageSize`. The shards are dealt so that each message fits its own limit (shard-message.ts), and
 * batched so that each call fits this one: the five messages of the worst minute's 10,000 clusters go in one call when
 * their names share their prefixes, and in two when pseudo-random names make them about 273 KB each.
 */
const BATCH_MESSAGES = 10;
const BATCH_BYTES = 1024 * 1024;

/** A shard SQS would not take: the step cannot be evaluated whole, so the poll fails and its retry sends it again. */
export class ShardQueueError extends SentinelError {}

/** The shard queue the workers' event source mapping drains. */
export class SqsShardQueue implements ShardQueue {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  readonly maxMessageBytes = SQS_SHARD_MESSAGE.maxMessageBytes;
  readonly encode = SQS_SHARD_MESSAGE.encode;

  /** Sends each message's body as the dealing encoded and measured it. */
  async send(messages: readonly ShardMessage[]): Promise<void> {
    for (const batch of batches(messages)) {
      const { Failed } = await this.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: batch.map(({ task, body }) => ({ Id: String(task.shard), MessageBody: body })),
        }),
      );
      if (Failed && Failed.length > 0) {
        const reasons = Failed.map((f) => `shard ${f.Id}: ${f.Code} ${f.Message ?? ''}`.trim()).join('; ');
        throw new ShardQueueError(`the shard queue did not take ${Failed.length} shard(s): ${reasons}`);
      }
    }
  }
}

function* batches(messages: readonly ShardMessage[]): Generator<ShardMessage[]> {
  let batch: ShardMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    if (message.bytes > SQS_SHARD_MESSAGE.maxMessageBytes) {
      throw new ShardQueueError(
        `a shard's message is ${message.bytes} bytes, over SQS's ${SQS_SHARD_MESSAGE.maxMessageBytes}`,
      );
    }
    if (batch.length === BATCH_MESSAGES || bytes + message.bytes > BATCH_BYTES) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(message);
    bytes += message.bytes;
  }
  if (batch.length > 0) yield batch;
}
