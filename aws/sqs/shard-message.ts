import { gunzipSync, gzipSync } from 'node:zlib';
import type { ShardMessageSize, ShardTask } from '../../shared/pipeline/shards.ts';

/*
 * The body of a shard message: the task as JSON, gzipped, in base64, which SQS takes as text. Cluster names of a fleet
 * share their prefixes (environment, team, Region, purpose) and compress well: a shard of 2,000 such names of 128
 * characters, all armed and muted, is 280 KB of JSON and 24 KB of message (test/support/long-names.ts). Names that
 * share nothing do not: 2,000 pseudo-random names of 128 characters gzip to about three quarters and base64 adds a
 * third, 273 KB of message for the same 280 KB of JSON, which is why the dealing (shardTasks) measures each message
 * rather than trusting the shard size.
 */

/**
 * The shard queue takes a message of at most 256 KiB: its `MaximumMessageSize`, which is 262,144 bytes unless set
 * (up to 1 MiB; https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SetQueueAttributes.html),
 * and which the stack sets to this (infra/shard-workers.ts). A SendMessageBatch call takes as much in all
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html).
 */
const MESSAGE_BYTES = 256 * 1024;

export function shardMessageBody(task: ShardTask): string {
  return gzipSync(JSON.stringify(task)).toString('base64');
}

/** The JSON text a shard message's body carries; throws zlib's error when the body is not gzip in base64. */
export function shardMessageJson(body: string): string {
  return gunzipSync(Buffer.from(body, 'base64')).toString('utf8');
}

/** What a shard's SQS message is, and may be. */
export const SQS_SHARD_MESSAGE: ShardMessageSize = {
  maxMessageBytes: MESSAGE_BYTES,
  messageBytes: (task) => Buffer.byteLength(shardMessageBody(task)),
};
