import { gzipSync } from 'node:zlib';
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
import { SHARD_WORKERS, type ShardMessage, type ShardTask } from '../../shared/pipeline/shards.ts';
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
    return { body: message.body, bytes: Buffer.byteLength(message.body), task };
  });

const tasksOf = (messages: readonly ShardMessage[]) => messages.map((m) => m.task);

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
    const messages = worstMinute(sharedPrefixNames(FLEET));

    await new SqsShardQueue(client, queueUrl).send(messages);
    const read = workerReads();

    expect(read.map((r) => r.task)).toEqual(tasksOf(messages));
    expect(read.map((r) => r.body)).toEqual(messages.map((m) => m.body));
    expect(messages).toHaveLength(SHARD_WORKERS);
    expect(Math.max(...read.map((r) => r.bytes))).toBeLessThan(32_768);
    expect(sqs.calls.SendMessageBatch).toBe(1);
  });

  it(`sends names that share nothing in ${SHARD_WORKERS} messages, batched in calls of at most 1 MiB`, async () => {
    const messages = worstMinute(pseudoRandomNames(FLEET));
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

    await new SqsShardQueue(recording, queueUrl).send(messages);
    recording.destroy();
    const read = workerReads();

    expect(read.map((r) => r.task)).toEqual(tasksOf(messages));
    expect(messages).toHaveLength(SHARD_WORKERS);
    expect(read.every((r) => r.bytes > 262_144 && r.bytes <= 1_048_576)).toBe(true);
    expect(calls.flat()).toEqual(read.map((r) => r.bytes));
    expect(calls.every((sizes) => total(sizes) <= 1_048_576)).toBe(true);
    // A call ends only where the next message would have taken it over 1 MiB.
    expect(calls.slice(1).every((sizes, i) => total([...(calls[i] ?? []), sizes[0] ?? 0]) > 1_048_576)).toBe(true);
    expect(sqs.calls.SendMessageBatch).toBe(calls.length);
  });

  it('sends the body each shard was dealt with, and does not encode its task again', async () => {
    const task: ShardTask = { at: AT, shard: 0, shards: 1, full: ['a'], minute: ['b', 'c'], muted: [1], armed: [0, 2] };
    // Gzipped faster than the queue's own encoding would: a body the queue would not have made of the task itself.
    const body = gzipSync(JSON.stringify(task), { level: 1 }).toString('base64');
    const queue = new SqsShardQueue(client, queueUrl);

    await queue.send([{ task, body, bytes: Buffer.byteLength(body) }]);
    const read = workerReads();

    expect(body).not.toBe(queue.encode(task).body);
    expect(read).toEqual([{ body, bytes: Buffer.byteLength(body), task }]);
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
