import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { cloudWatchClients, documentClient } from '../../aws/clients.ts';
import { CloudWatchMetricSource } from '../../aws/cloudwatch/metric-source.ts';
import { DynamoDbShardFindings } from '../../aws/dynamodb/shard-findings.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { DynamoDbTable } from '../../aws/dynamodb/table.ts';
import { shardMessageBody, shardMessageJson } from '../../aws/sqs/shard-message.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { memoryStores } from '../../shared/pipeline/memory-stores.ts';
import { runPoll } from '../../shared/pipeline/poll.ts';
import type { ShardReport, ShardTask } from '../../shared/pipeline/shards.ts';
import { CollectingNotifier } from '../../shared/scenario/replay.ts';
import { type AwsHarness, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import {
  FLEET_STEP_AT,
  fleetClusters,
  fleetPlan,
  loadFleet,
  worstMinuteSamples,
} from '../../support/fleet-generator.ts';
import { loadPoller, loadTripwire, type PollHandler, pollAt, tripwireAt } from '../../support/poller-harness.ts';
import { type QueuedMessage, SqsServer } from '../../support/sqs-server.ts';

/*
 * The fan-out over the real wire: the poller's and the shard worker's real handlers, DynamoDB on dynalite, the
 * quota-enforcing loopback CloudWatch and a loopback SQS queue the poller sends its shards to. The test plays Lambda's
 * event source mapping: it drains the queue and invokes the worker with the SQS event those messages make. The fleet
 * is three shards, with a webhook outage on three clusters (fleet-00000, -00050, -00105) that different shards read,
 * every tripwire armed:
 * the worst minute, as a regional metric delay makes it.
 */

const FLEET = 120;
const SHARD = 40;
const OUTAGE = ['fleet-00000', 'fleet-00050', 'fleet-00105'];

type WorkerHandler = (event: ReturnType<typeof SqsServer.eventOf>, context: Context) => Promise<unknown>;

let harness: AwsHarness;
let sqs: SqsServer;
let queueUrl: string;
let poll: PollHandler;
let worker: WorkerHandler;
let firstStep: { summary: Awaited<ReturnType<PollHandler>>; messages: QueuedMessage[] };
let requests = 0;

const contextWith = (remainingMs: number) =>
  ({ awsRequestId: `fan-out-${++requests}`, getRemainingTimeInMillis: () => remainingMs }) as unknown as Context;
const taskOf = (message: QueuedMessage) => JSON.parse(shardMessageJson(message.body)) as ShardTask;
const queued = (body: string): QueuedMessage => ({
  messageId: `message-${++requests}`,
  body,
  md5: '',
  sentAt: Date.now(),
});
const sent = () =>
  harness.sns.published.map((p) => JSON.parse((JSON.parse(p.message) as { default: string }).default) as Notification);
const pages = () => sent().filter((n) => n.kind === 'page');

/** Wait until the poller has sent its shards, then take them off the queue. */
async function shardsSent(): Promise<QueuedMessage[]> {
  for (let waited = 0; waited < 30_000; waited += 20) {
    const messages = sqs.drain(queueUrl);
    if (messages.length > 0) return messages;
    await sleep(20);
  }
  throw new Error('the poller sent no shard within 30 s');
}

/** Invoke the worker as the event source mapping would, one shard a batch. */
async function deliver(messages: readonly QueuedMessage[], receiveCount = 1): Promise<void> {
  for (const message of messages) {
    await worker(SqsServer.eventOf(queueUrl, [message], receiveCount), contextWith(60_000));
  }
}

beforeAll(async () => {
  harness = await startAwsHarness();
  sqs = await new SqsServer().listen();
  queueUrl = sqs.createQueue('sentinel-shards');
  process.env.AWS_ENDPOINT_URL_SQS = sqs.endpoint;
  // Every tripwire is armed on data that reads fine, which the poll warns of once per cluster (blind-tripwires.ts).
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  Object.assign(process.env, { SENTINEL_SHARD_QUEUE_URL: queueUrl, SENTINEL_SHARD_SIZE: String(SHARD) });
  loadFleet(harness.cloudwatch, 0, FLEET, FLEET_STEP_AT, worstMinuteSamples(fleetPlan(FLEET)));
  poll = await loadPoller(harness, fleetClusters(FLEET));
  ({ handler: worker } = (await import('../../functions/shard-worker/handler.ts')) as unknown as {
    handler: WorkerHandler;
  });
  const tripwire = await loadTripwire();
  for (const cluster of fleetClusters(FLEET))
    await tripwireAt(tripwire, cluster.name, 'ALARM', FLEET_STEP_AT - 180_000);

  const polling = pollAt(poll, FLEET_STEP_AT, contextWith(40_000));
  const messages = await shardsSent();
  // Every shard delivered twice, the second time as SQS redelivers a message whose worker it did not hear back from.
  await deliver(messages);
  await deliver(messages, 2);
  firstStep = { summary: await polling, messages };
}, 180_000);

afterAll(async () => {
  await sqs?.close();
  await harness?.close();
  delete process.env.SENTINEL_SHARD_QUEUE_URL;
  delete process.env.SENTINEL_SHARD_SIZE;
  delete process.env.POWERTOOLS_LOG_LEVEL;
});

describe('a step larger than one shard, over the real wire', () => {
  it('sends one message per shard, each of at most a shard of clusters, covering the due clusters once', () => {
    const tasks = firstStep.messages.map(taskOf);
    const clusters = tasks.flatMap((t) => [...t.full, ...t.minute]);

    expect(tasks.map((t) => [t.shard, t.shards])).toEqual([
      [0, 3],
      [1, 3],
      [2, 3],
    ]);
    expect(tasks.every((t) => t.full.length + t.minute.length <= SHARD)).toBe(true);
    expect(new Set(clusters).size).toBe(FLEET);
    expect(sqs.calls.SendMessageBatch).toBe(1);
  });

  it('reads every cluster through its three shards, none unreadable, and keeps the count in its poll record', async () => {
    const { polls } = await dynamoDbStores({
      client: documentClient(),
      table: TABLE,
      now: Date.now,
    }).activityLog.activityBetween(FLEET_STEP_AT, FLEET_STEP_AT + 60_000);

    expect(firstStep.summary).toMatchObject({ claim: 'claimed', polled: FLEET, shards: 3, unreadableClusters: 0 });
    expect(polls.map((p) => [p.polled, p.shards])).toEqual([[FLEET, 3]]);
  });

  it('pages once for the fleet-wide webhook outage, whose clusters different shards read', () => {
    const shardOf = (cluster: string) =>
      firstStep.messages.map(taskOf).find((t) => [...t.full, ...t.minute].includes(cluster))?.shard;

    expect(new Set(OUTAGE.map(shardOf)).size).toBeGreaterThan(1);
    expect(pages()).toHaveLength(1);
    expect([...(pages()[0]?.clusters ?? [])].sort()).toEqual(OUTAGE);
  });

  it('notifies exactly what one process evaluating the same step notifies', async () => {
    const plan = fleetPlan(FLEET);
    const notifier = new CollectingNotifier();
    const everyCluster = new Set(plan.clusters.map((c) => c.name));
    await runPoll(
      {
        plan,
        metrics: new CloudWatchMetricSource({
          clientFor: cloudWatchClients(process.env.AWS_REGION),
          clusters: fleetClusters(FLEET),
          signals: plan.ruleSet.signals(),
        }),
        ...memoryStores(Date.now),
        notifier,
        tripwires: { armed: async () => ({ byAlarm: everyCluster, byNodeChurn: new Set() }) },
        owner: 'one-process',
        now: Date.now,
        leaseMs: 60_000,
      },
      FLEET_STEP_AT,
    );
    const shape = (n: Notification) => `${n.kind} ${n.rule} ${[...n.clusters].sort().join(',')}`;

    expect(sent().map(shape)).toEqual(notifier.sent.map(shape));
  });

  it('keeps the first report of a redelivered shard, so that the redelivery changes nothing', async () => {
    const findings = new DynamoDbShardFindings(
      new DynamoDbTable({ client: documentClient(), table: TABLE, now: Date.now }),
      'reader',
    );
    const before: ShardReport[] = await findings.reportsOf(FLEET_STEP_AT, 3);
    const published = harness.sns.published.length;

    await deliver(firstStep.messages.slice(0, 1), 3);

    expect(await findings.reportsOf(FLEET_STEP_AT, 3)).toEqual(before);
    expect(harness.sns.published.length).toBe(published);
  });

  it('counts the clusters of a shard that never reports unreadable for the step, and resolves none of them', async () => {
    const next = FLEET_STEP_AT + 60_000;
    const published = harness.sns.published.length;
    // Lambda leaves the poll 13 s: it waits 3 s for the shards, then runs the step without the one that never came.
    const polling = pollAt(poll, next, contextWith(13_000));
    const messages = await shardsSent();
    const silent = messages.find((m) => [...taskOf(m).full, ...taskOf(m).minute].includes('fleet-00050'));
    await deliver(messages.filter((m) => m !== silent));
    const summary = await polling;
    const silentClusters = silent ? taskOf(silent).full.length + taskOf(silent).minute.length : 0;
    const open = await dynamoDbStores({
      client: documentClient(),
      table: TABLE,
      now: Date.now,
    }).incidents.openIncidents();

    expect(silent).toBeDefined();
    expect(summary).toMatchObject({ claim: 'claimed', unreadableClusters: silentClusters });
    expect(
      sent()
        .slice(published)
        .filter((n) => n.kind === 'resolve' && n.clusters.includes('fleet-00050')),
    ).toEqual([]);
    expect(open.filter((i) => i.cluster === 'fleet-00050').map((i) => i.rule)).toContain(pages()[0]?.rule);
  });

  it("evaluates a message of the previous release, the clusters by name, as it evaluates today's", async () => {
    const sent = taskOf(firstStep.messages[0] as QueuedMessage);
    const names = [...sent.full, ...sent.minute];
    // Shards past the step's three, so that their reports stand beside the step's without changing it.
    const today: ShardTask = { ...sent, shard: 3, shards: 5, muted: [0, 1, 2] };
    const previous = {
      ...today,
      shard: 4,
      muted: today.muted.map((i) => names[i]),
      armed: today.armed.map((i) => names[i]),
    };

    await deliver([queued(shardMessageBody(today)), queued(JSON.stringify(previous))]);
    const reports = await new DynamoDbShardFindings(
      new DynamoDbTable({ client: documentClient(), table: TABLE, now: Date.now }),
      'reader',
    ).reportsOf(FLEET_STEP_AT, 5);
    const [ofToday, ofPrevious] = [3, 4].map((shard) => reports.find((r) => r.shard === shard));

    expect(previous.armed).toHaveLength(names.length);
    expect(ofToday?.clusters).toHaveLength(names.length);
    expect({ ...ofPrevious, shard: 3 }).toEqual(ofToday);
  });

  it('refuses a message it cannot read, naming what is wrong with it', async () => {
    const sent = taskOf(firstStep.messages[0] as QueuedMessage);
    const clusters = sent.full.length + sent.minute.length;

    await expect(deliver([queued(shardMessageBody({ ...sent, armed: [clusters] }))])).rejects.toThrow(
      `invalid event: $.Records[0].body.armed[0]: position ${clusters} is past the shard's ${clusters} clusters`,
    );
    await expect(deliver([queued('H4sIAAAA')])).rejects.toThrow(
      /^invalid event: \$\.Records\[0\]\.body: neither a shard task's JSON nor its gzip in base64 \(Error: /,
    );
  });
});
