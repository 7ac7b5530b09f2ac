import { gunzipSync, gzipSync } from 'node:zlib';
import type { ShardMessageFormat, ShardTask } from '../../shared/pipeline/shards.ts';

/*
 * The body of a shard message: the task as JSON, gzipped, in base64, which SQS takes as text. Cluster names of a fleet
 * share their prefixes (environment, team, Region, purpose) and compress well: a shard of 2,000 such names of 128
 * characters, all armed and muted, is 280 KB of JSON and 24 KB of message (test/support/long-names.ts). Names that
 * share nothing do not: 2,000 pseudo-random names of 128 characters gzip to about three quarters and base64 adds a
 * third, 273 KB of message for the same 280 KB of JSON, which is why the dealing (shardMessages) measures each message
 * rather than trusting the shard size. Each message is encoded once, as it is dealt, and sent as it was measured.
 */

/**
 * The shard queue takes a message of at most 1 MiB, 1,048,576 bytes. SQS raised its limit from 256 KiB to 1 MiB in
 * 2025, for queues that already existed too ("More room to build: serverless services now support payloads up to
 * 1 MB", https://aws.amazon.com/blogs/compute/more-room-to-build-serverless-services-now-support-payloads-up-to-1-mb);
 * a queue's `MaximumMessageSize` may be set from 1,024 bytes up to it
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html), and the stack
 * sets the shard queue's to this (infra/shard-workers.ts). A SendMessageBatch call takes as much in all
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html). The largest
 * message of the worst minute of 10,000 clusters, every one armed and muted, with pseudo-random names of 128
 * characters, is about 273 KB, a quarter of the line: the fleet keeps its five shards whatever its names. A typical
 * message is a few tens of KB, one or two of the 64 KiB chunks SQS bills as a request each
 * (https://aws.amazon.com/sqs/pricing/).
 */
const MESSAGE_BYTES = 1024 * 1024;

export function shardMessageBody(task: ShardTask): string {
  return gzipSync(JSON.stringify(task)).toString('base64');
}

/** The JSON text a shard message's body carries; throws zlib's error when the body is not gzip in base64. */
export function shardMessageJson(body: string): string {
  return gunzipSync(Buffer.from(body, 'base64')).toString('utf8');
}

/** What a shard's SQS message is, and may be. */
export const SQS_SHARD_MESSAGE: ShardMessageFormat = {
  maxMessageBytes: MESSAGE_BYTES,
  encode: (task) => {
    const body = shardMessageBody(task);
    return { task, body, bytes: Buffer.byteLength(body) };
  },
};
