import { parse } from '@aws-lambda-powertools/parser';
import { SqsEnvelope } from '@aws-lambda-powertools/parser/envelopes/sqs';
import {
  SendMessageBatchCommand,
  type SendMessageBatchCommandInput,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SqsShardQueue } from '../../aws/sqs/shard-queue.ts';
import { shardMessageSchema } from '../../functions/shard-worker/shard-task.ts';
import { SHARD_WORKERS, type ShardTask } from '../../shared/pipeline/shards.ts';
import { SqsServer } from '../../support/sqs-server.ts';
import { pseudoRandomNames, sharedPrefixNames, worstMinuteShards } from '../support/long-names.ts';

/*
 * Shard messages over the wire: the poller's queue adapter sends the worst minute of 10,000 clusters of 128-character
 * names to a loopback SQS that takes at most 1,048,576 bytes a message and a batch, as SendMessageBatch's reference
 * gives (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html), and the
 * shard worker's parser reads each message back from the SQS event Lambda would invoke it with.
 */

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
const AT = Date.parse('2026-01-05T12:00:00Z');
const FLEET = 10_000;

let sqs: SqsServer;
let client: SQSClient;
let queueUrl: string;

const worstMinute = (fleet: readonly string[]) => worstMinuteShards(AT, fleet);

/** What the worker's parser makes of the messages on the queue, as the event source mapping would hand them over. */
const workerReads = () =>
  sqs.drain(queueUrl).map((message) => {
    const [task] = parse(SqsServer.eventOf(queueUrl, [message]), SqsEnvelope, shardMessageSchema) as ShardTask[];
    return { bytes: Buffer.byteLength(message.body), task };
  });

beforeAll(async () => {
  sqs = await new SqsServer().listen();
  queueUrl = sqs.createQueue('sentinel-shards');
  client = new SQSClient({ endpoint: sqs.endpoint, region: 'eu-west-1', credentials, maxAttempts: 1 });
});

beforeEach(() => sqs.reset());

afterAll(async () => {
  client.destroy();
  await sqs?.close();
});

describe('the loopback SQS, at its limits', () => {
  it('takes a message of 1,048,576 bytes and refuses one byte more with InvalidParameterValue', async () => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x'.repeat(1_048_576) }));

    await expect(
      client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: 'x'.repeat(1_048_577) })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: 'One or more parameters are invalid. Reason: Message must be shorter than 1048576 bytes.',
    });
    expect(sqs.drain(queueUrl)).toHaveLength(1);
  });

  it('takes a batch of 1,048,576 bytes in all and refuses one byte more with BatchRequestTooLong', async () => {
    const batch = (last: number) =>
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: [
          { Id: 'a', MessageBody: 'x'.repeat(524_288) },
          { Id: 'b', MessageBody: 'x'.repeat(last) },
        ],
      });

    await client.send(batch(524_288));

    await expect(client.send(batch(524_289))).rejects.toMatchObject({ name: 'BatchRequestTooLong' });
    expect(sqs.drain(queueUrl)).toHaveLength(2);
  });
});

describe('the worst minute of 10,000 clusters of 128-character names through the shard queue', () => {
  it(`sends names that share their prefixes in ${SHARD_WORKERS} messages, read back as sent`, async () => {
    const tasks = worstMinute(sharedPrefixNames(FLEET));

    await new SqsShardQueue(client, queueUrl).send(tasks);
    const read = workerReads();

    expect(read.map((r) => r.task)).toEqual(tasks);
    expect(tasks).toHaveLength(SHARD_WORKERS);
    expect(Math.max(...read.map((r) => r.bytes))).toBeLessThan(32_768);
    expect(sqs.calls.SendMessageBatch).toBe(1);
  });

  it(`sends names that share nothing in ${SHARD_WORKERS} messages, batched in calls of at most 1 MiB`, async () => {
    const tasks = worstMinute(pseudoRandomNames(FLEET));
    // Each call's messages, by size in bytes, as the client sends them.
    const calls: number[][] = [];
    const recording = new SQSClient({ endpoint: sqs.endpoint, region: 'eu-west-1', credentials, maxAttempts: 1 });
    recording.middlewareStack.add(
      (next) => async (args) => {
        const { Entries = [] } = args.input as SendMessageBatchCommandInput;
        calls.push(Entries.map((entry) => Buffer.byteLength(entry.MessageBody ?? '')));
        return next(args);
      },
      { step: 'initialize', name: 'recordBatchBytes' },
    );
    const total = (sizes: readonly number[]) => sizes.reduce((a, b) => a + b, 0);

    await new SqsShardQueue(recording, queueUrl).send(tasks);
    recording.destroy();
    const read = workerReads();

    expect(read.map((r) => r.task)).toEqual(tasks);
    expect(tasks).toHaveLength(SHARD_WORKERS);
    expect(read.every((r) => r.bytes > 262_144 && r.bytes <= 1_048_576)).toBe(true);
    expect(calls.flat()).toEqual(read.map((r) => r.bytes));
    expect(calls.every((sizes) => total(sizes) <= 1_048_576)).toBe(true);
    // A call ends only where the next message would have taken it over 1 MiB.
    expect(calls.slice(1).every((sizes, i) => total([...(calls[i] ?? []), sizes[0] ?? 0]) > 1_048_576)).toBe(true);
    expect(sqs.calls.SendMessageBatch).toBe(calls.length);
  });
});

describe("the shard worker's reading of a message of the previous release", () => {
  it('reads its plain JSON, the muted and armed clusters by name, as the task it names', () => {
    const task: ShardTask = { at: AT, shard: 1, shards: 3, full: ['a'], minute: ['b', 'c'], muted: [1], armed: [0, 2] };
    const previous = {
      messageId: 'm',
      body: JSON.stringify({ ...task, muted: ['b'], armed: ['a', 'c'] }),
      md5: '',
      sentAt: AT,
    };

    expect(parse(SqsServer.eventOf(queueUrl, [previous]), SqsEnvelope, shardMessageSchema)).toEqual([task]);
  });
});
