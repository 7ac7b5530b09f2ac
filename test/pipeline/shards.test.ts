import { describe, expect, it } from '@jest/globals';
import { SQS_SHARD_MESSAGE } from '../../aws/sqs/shard-message.ts';
import { pollOnSchedule } from '../../functions/poller/poll-on-schedule.ts';
import { DISPLAY_NAME, DISPLAY_NAME_MAX } from '../../shared/config/cluster-identity.ts';
import { compileRuleSet } from '../../shared/config/deployment-config.ts';
import { buildPlan } from '../../shared/pipeline/build-plan.ts';
import { MemoryShardFindings } from '../../shared/pipeline/memory-shard-findings.ts';
import { memoryStores } from '../../shared/pipeline/memory-stores.ts';
import {
  type FanOut,
  fanOutStep,
  SHARD_WORKERS,
  type ShardMessage,
  type ShardMessageFormat,
  type ShardReport,
  type ShardTask,
  shardClusters,
  shardMessages,
} from '../../shared/pipeline/shards.ts';
import { CollectingNotifier } from '../../shared/scenario/replay.ts';
import { pseudoRandomNames, sharedPrefixNames, worstMinuteShards } from '../support/long-names.ts';

const AT = Date.parse('2026-01-05T12:00:00Z');
const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

const reportOf = (shard: number, clusters: readonly string[]): ShardReport => ({
  at: AT,
  shard,
  clusters: clusters.map((cluster) => ({ cluster, findings: [], severe: [] })),
  metricsRequested: clusters.length,
  unreadable: [],
  freshClusters: clusters.length,
  blindTripwires: [],
});

/** The shards of `messages`, as the workers get them. */
const tasksOf = (messages: readonly ShardMessage[]) => messages.map((m) => m.task);

/** A fan-out over memory whose workers are `answer`, and a clock that the sleeps move on. */
function memoryFanOut(answer: (findings: MemoryShardFindings, tasks: ShardTask[]) => void) {
  let clock = 0;
  const findings = new MemoryShardFindings();
  const fanOut: FanOut = {
    queue: { ...SQS_SHARD_MESSAGE, send: async (messages) => answer(findings, tasksOf(messages)) },
    findings,
    shardSize: 3,
    waitUntil: 5_000,
    checkEveryMs: 1_000,
    sleep: async (ms) => {
      clock += ms;
    },
  };
  return { fanOut, now: () => clock };
}

describe('shardMessages', () => {
  it('deals the full reads across the shards, no shard larger than the shard size', () => {
    const tasks = tasksOf(
      shardMessages(
        AT,
        { full: names('full', 3), minute: names('minute', 7) },
        4,
        () => false,
        new Set(),
        SQS_SHARD_MESSAGE,
      ),
    );

    expect(tasks.map((t) => [t.full.length, t.minute.length])).toEqual([
      [1, 3],
      [1, 2],
      [1, 2],
    ]);
    expect(tasks.flatMap((t) => [...t.full, ...t.minute]).sort()).toEqual(
      [...names('full', 3), ...names('minute', 7)].sort(),
    );
  });

  it('tells each shard which of its clusters are muted and which are armed, by their position in it', () => {
    const [task] = tasksOf(
      shardMessages(
        AT,
        { full: ['a'], minute: ['b', 'c'] },
        3,
        (c) => c === 'b',
        new Set(['c', 'z']),
        SQS_SHARD_MESSAGE,
      ),
    );

    expect(task).toMatchObject({ shard: 0, shards: 1, full: ['a'], minute: ['b', 'c'], muted: [1], armed: [2] });
  });

  it('encodes each shard once, and the queue is handed the messages it measured', async () => {
    const encoded: ShardTask[] = [];
    const counting: ShardMessageFormat = {
      ...SQS_SHARD_MESSAGE,
      encode: (task) => {
        encoded.push(task);
        return SQS_SHARD_MESSAGE.encode(task);
      },
    };
    const sent: ShardMessage[] = [];
    const { fanOut, now } = memoryFanOut(() => {});

    const messages = shardMessages(AT, { full: [], minute: names('c', 6) }, 3, () => false, new Set(), counting);
    await fanOutStep({ ...fanOut, queue: { ...counting, send: async (m) => void sent.push(...m) } }, messages, now);

    expect(encoded).toEqual(tasksOf(messages));
    expect(sent).toEqual(messages);
    expect(sent.every((m, i) => m === messages[i])).toBe(true);
  });
});

/*
 * The worst minute of 10,000 clusters, every one armed and muted (worstMinuteShards). Each shard's message is measured
 * as SQS would get it (aws/sqs/shard-message.ts) against the 1,048,576 bytes SQS takes
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html).
 */
describe('shardMessages in the worst minute of 10,000 clusters of long names', () => {
  const FLEET = 10_000;
  const worstMinute = (fleet: readonly string[]) => worstMinuteShards(AT, fleet);
  const largestMessage = (messages: readonly ShardMessage[]) =>
    Math.max(...messages.map((m) => Buffer.byteLength(m.body)));

  it(`keeps ${SHARD_WORKERS} shards, each one message, when the names are 128 characters that do not compress`, () => {
    const fleet = pseudoRandomNames(FLEET);
    const messages = worstMinute(fleet);
    const tasks = tasksOf(messages);
    const largest = largestMessage(messages);

    expect(fleet.every((name) => name.length === DISPLAY_NAME_MAX && DISPLAY_NAME.test(name))).toBe(true);
    expect(tasks).toHaveLength(SHARD_WORKERS);
    expect(largest).toBeLessThanOrEqual(1_048_576);
    expect(largest).toBeGreaterThan(262_144);
    expect(tasks.flatMap((t) => [...t.full, ...t.minute]).sort()).toEqual([...fleet].sort());
  });

  it(`keeps ${SHARD_WORKERS} shards when the names are 128 characters that share their prefixes`, () => {
    const fleet = sharedPrefixNames(FLEET);
    const messages = worstMinute(fleet);
    const tasks = tasksOf(messages);

    expect(fleet.every((name) => name.length === DISPLAY_NAME_MAX && DISPLAY_NAME.test(name))).toBe(true);
    expect(tasks).toHaveLength(SHARD_WORKERS);
    expect(largestMessage(messages)).toBeLessThanOrEqual(1_048_576);
    expect(tasks.every((t) => t.muted.length === t.full.length + t.minute.length)).toBe(true);
  });

  it('deals names that do not compress into more shards on a queue whose MaximumMessageSize was set lower', () => {
    const fleet = pseudoRandomNames(FLEET);
    const lower: ShardMessageFormat = { ...SQS_SHARD_MESSAGE, maxMessageBytes: 262_144 };
    const messages = worstMinuteShards(AT, fleet, lower);
    const tasks = tasksOf(messages);

    expect(tasks.length).toBeGreaterThan(SHARD_WORKERS);
    expect(tasks.every((t) => t.shards === tasks.length)).toBe(true);
    expect(largestMessage(messages)).toBeLessThanOrEqual(lower.maxMessageBytes);
    expect(tasks.flatMap((t) => [...t.full, ...t.minute]).sort()).toEqual([...fleet].sort());
    const fullReads = tasks.map((t) => t.full.length);
    expect(Math.max(...fullReads) - Math.min(...fullReads)).toBeLessThanOrEqual(1);
  });
});

describe('fanOutStep', () => {
  /** Six minute reads, three a shard. */
  const sixClustersInTwoShards = () =>
    shardMessages(AT, { full: [], minute: names('c', 6) }, 3, () => false, new Set(), SQS_SHARD_MESSAGE);

  it('takes every report when all shards answer', async () => {
    const { fanOut, now } = memoryFanOut((findings, tasks) => {
      for (const t of tasks) void findings.report(reportOf(t.shard, [...t.full, ...t.minute]));
    });
    const messages = sixClustersInTwoShards();

    const { reports, late } = await fanOutStep(fanOut, messages, now);

    expect(reports.map((r) => r.shard)).toEqual([0, 1]);
    expect(late).toEqual([]);
  });

  it('counts the clusters of a shard that never reports unreadable once the wait is over', async () => {
    const { fanOut, now } = memoryFanOut((findings, tasks) => {
      const [first] = tasks;
      if (first) void findings.report(reportOf(first.shard, [...first.full, ...first.minute]));
    });
    const messages = sixClustersInTwoShards();

    const { reports, late } = await fanOutStep(fanOut, messages, now);

    expect(reports.map((r) => r.shard)).toEqual([0]);
    expect(late).toEqual([{ clusters: messages[1]?.task.minute, error: 'shard 2 of 2 did not report within 5 s' }]);
    expect(now()).toBe(5_000);
  });

  it('keeps the first report of a shard reported twice', async () => {
    const findings = new MemoryShardFindings();
    await findings.report(reportOf(0, ['a']));
    await findings.report(reportOf(0, ['b']));

    expect((await findings.reportsOf(AT, 1)).map((r) => r.clusters.map((c) => c.cluster))).toEqual([['a']]);
  });
});

describe('a poll that fans out its step', () => {
  const clusters = names('c', 6);
  const plan = buildPlan({ ruleSet: compileRuleSet([], 'rules'), clusters, maintenance: [], stepSeconds: 60 });
  // Scheduled three minutes after the step (the ingestion lag of 2 minutes and the minute itself), started 3 s later.
  const scheduledTime = new Date(AT + 180_000).toISOString();
  const startedAt = AT + 183_000;

  /** A poll of six clusters, every one armed, in shards of `shardSize` when given; and what it said of itself. */
  async function pollInShardsOf(shardSize?: number) {
    const stores = memoryStores(() => startedAt);
    const findings = new MemoryShardFindings();
    // Workers that answer every shard before the queue returns.
    const fanOut: FanOut = {
      queue: {
        ...SQS_SHARD_MESSAGE,
        send: async (messages) => {
          for (const { task } of messages) await findings.report(reportOf(task.shard, shardClusters(task)));
        },
      },
      findings,
      shardSize: shardSize ?? 0,
      waitUntil: startedAt + 5_000,
      checkEveryMs: 1_000,
      sleep: async () => {},
    };
    const metrics = new Map<string, number>();
    const summary = await pollOnSchedule(
      {
        plan,
        metrics: { read: async () => ({ windows: new Map(), metricsRequested: 0, unreadable: [] }) },
        ...stores,
        notifier: new CollectingNotifier(),
        tripwires: { armed: async () => ({ byAlarm: new Set(clusters), byNodeChurn: new Set() }) },
        ...(shardSize !== undefined && { fanOut }),
        owner: 'test',
        now: () => startedAt,
        leaseMs: 60_000,
        ingestionLag: '2m',
        logger: { error: () => {}, debug: () => {}, warn: () => {} },
        pipelineMetrics: { addMetric: (name, _unit, value) => void metrics.set(name, value) },
        dashboard: true,
      },
      { kind: 'poll', scheduledTime },
    );
    const { polls } = await stores.activityLog.activityBetween(AT, AT + 60_000);
    return { summary, metric: metrics.get('Shards'), records: polls };
  }

  it('reports how many shards it dealt the step into: in its summary, its poll record and the Shards metric', async () => {
    const { summary, metric, records } = await pollInShardsOf(3);

    expect(summary).toMatchObject({ claim: 'claimed', polled: 6, shards: 2, unreadableClusters: 0 });
    expect(metric).toBe(2);
    expect(records.map((r) => r.shards)).toEqual([2]);
  });

  it('reports no shard when it reads the step itself, and keeps none in its poll record', async () => {
    const { summary, metric, records } = await pollInShardsOf();

    expect([summary.shards, metric]).toEqual([0, 0]);
    expect(records).toHaveLength(1);
    expect(records[0]).not.toHaveProperty('shards');
  });
});
