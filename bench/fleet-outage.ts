/**
 * The fleet-scale fault test: every cluster of a fleet but one fails in the same minute, and the deployed functions
 * run it, each in a container of its own with its function's memory (support/fleet-outage.ts): the poller, the shard
 * workers of a fleet larger than one shard, the tripwire function fed the alarms' state changes and the delivery
 * function paging PagerDuty, over DynamoDB (dynalite, in a process of its own) and the loopback CloudWatch, SNS, SQS,
 * Secrets Manager and PagerDuty, until the fleet's page, its resolve and the last cluster's page an hour later have
 * been delivered: once without faults and once with each fault of FLEET_OUTAGE_FAULTS.
 *
 * At 10,000 clusters a poll of the outage reads every cluster every minute, which GetMetricData's quotas stretch to
 * about 20 s, and a case takes several minutes: `npm run bench` runs the three cases at BENCH_CLUSTERS, and
 * `npx tsx bench/fleet-outage.ts` runs them at 10,000 (or the size given after it), writing its figures into
 * bench/results.json and its section of bench/RESULTS.md, leaving the other sections as they were.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { PollSummary } from '../functions/poller/poll-on-schedule.ts';
import { POLLER_TIMEOUT } from '../infra/ops-stack.ts';
import {
  type DynamoDbThroughputProxy,
  type PartitionUsage,
  scaledThroughput,
  startDynamoDbThroughputProxy,
} from '../support/dynamodb-throughput-proxy.ts';
import {
  FLEET_OUTAGE_FAULTS,
  type FleetInvocation,
  FUNCTION_NAMES,
  type FunctionName,
  functionLimits,
  LONE_CLUSTER,
  type PagedMessage,
  runFleetOutage,
  withinLimits,
} from '../support/fleet-outage.ts';
import type { FunctionLimits } from '../support/function-container.ts';
import type { BenchResults } from './report.ts';

/** The most clusters one deployment watches: the fleet-scale test's size when run alone. */
export const FLEET_OUTAGE_CLUSTERS = 10_000;
/** The size `npm run bench` runs the three cases at, within its ten minutes. */
export const BENCH_CLUSTERS = 1_000;
/**
 * A case that takes longer than this has failed: at BENCH_CLUSTERS a case takes about a minute, and the benchmark
 * must end within its ten; alone, at 10,000 clusters, one takes 11 to 15 minutes.
 */
const runTimeoutMs = (clusters: number) => (clusters <= BENCH_CLUSTERS ? 480_000 : 3_600_000);

const CASES = [['without faults', undefined], ...FLEET_OUTAGE_FAULTS] as const;
/** The case run at DynamoDB's throughput line (THROTTLED_CLUSTERS), after CASES. */
const THROTTLED_CASE = CASES.length;
/**
 * The size the throttled case runs at, against DynamoDB's limits scaled by THROTTLED_CLUSTERS / 10,000
 * (scaledThroughput): each partition the fleet grows (an incident per cluster in `OPEN`, `INCIDENT` and `byDay`, a
 * tripwire state per cluster, a step's parts) meets the line as at 10,000 clusters at DynamoDB's own, 1,000 clusters
 * at 100 write units a second a partition as 10,000 at 1,000. What does not grow is a larger share of the scaled
 * line: a poll's claim and record, and the size of one part of a step (300 KB, 293 write units whatever the fleet),
 * 2.9 s of a partition at 100 a second where it is 0.3 s at 1,000. A smaller fleet is ruled by that: at 150 clusters
 * (15 a second) one part outlasts the SDK's retries on its own.
 */
export const THROTTLED_CLUSTERS = 1_000;
/** The poller's timeout as deployed (infra/ops-stack.ts). */
const POLLER_TIMEOUT_MS = POLLER_TIMEOUT.toMilliseconds();

/** One function's invocations in a case: how many, the slowest, the most memory, and whether each was within limits. */
export interface FunctionFigures {
  readonly function: FunctionName;
  readonly memoryMb: number;
  readonly timeoutMs: number;
  readonly invocations: number;
  readonly failed: number;
  readonly slowestMs: number;
  /** The most CPU time an invocation's process spent: on a shared machine, the share of the wall time that was its own. */
  readonly mostCpuMs: number;
  readonly peakHeapMb: number;
  readonly peakRssMb: number;
  readonly withinLimits: boolean;
}

export interface FleetOutageRow {
  readonly faults: string;
  readonly clusters: number;
  readonly completed: boolean;
  /** One page, one resolve, the lone cluster's page, in that order and nothing else, and PagerDuty saw the same. */
  readonly pagedAsExpected?: boolean;
  readonly subjects?: readonly string[];
  /** The step of the poll that published each page and resolve. */
  readonly pagedAtSteps?: readonly number[];
  readonly totalMs?: number;
  /** Each poll (the poller's invocations), in order. */
  readonly polls?: readonly PollFigures[];
  readonly functions?: readonly FunctionFigures[];
  /** Whether every invocation of every function stayed within its timeout and memory (functionLimits). */
  readonly withinLimits?: boolean;
  readonly struck?: readonly string[];
  readonly dynalitePeakRssMb?: number;
  /** The partitions that took the most write units within one poll, hottest first (at most HOT_PARTITIONS). */
  readonly hottestPartitions?: readonly HotPartition[];
  /** In the throttled case: the line, per partition, as the run held it. */
  readonly throughputLine?: { readonly partitionWriteUnits: number; readonly partitionReadUnits: number };
  /**
   * In the throttled case: the poller's timeout, when it was given what a 10,000-cluster poll's evaluation leaves of
   * it (measureThrottledFleetOutage), not the deployed one.
   */
  readonly pollerTimeoutMs?: number;
  /**
   * In the throttled case: the requests refused, by operation and the partition key whose line they met (`table` for
   * the line in all): `PutItem OPEN`.
   */
  readonly throttledRequests?: Readonly<Record<string, number>>;
  /** Each message of the paging topic, in order: when it left, and the poll (step, attempt) that published it. */
  readonly published?: readonly PagedMessage[];
  /** The machine's one-minute load average when the run ended: above its cores, wall times are not the run's own. */
  readonly loadAverage?: number;
  readonly error?: string;
}

/**
 * A partition key's largest share of one poll: the request units every function took of it from the end of the poll
 * before to the end of this one (the poll's own, and the tripwire and delivery functions' beside it). DynamoDB serves a
 * partition at most 1,000 write units a second, so `writeUnits` / 1,000 is the least time those writes can take.
 */
export interface HotPartition {
  readonly partition: string;
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly step: number;
  readonly pollMs: number;
}

const HOT_PARTITIONS = 4;

const run = promisify(execFile);
const self = fileURLToPath(import.meta.url);

/** Every case of the fleet outage at `clusters`, one child process each. */
export async function measureFleetOutage(clusters = BENCH_CLUSTERS): Promise<FleetOutageRow[]> {
  const rows: FleetOutageRow[] = [];
  for (const [index, [faults]] of CASES.entries()) rows.push(await caseInChild(index, faults, clusters));
  return rows;
}

/**
 * The outage without faults and at DynamoDB's throughput line, scaled to `clusters` (THROTTLED_CLUSTERS): how much
 * later the page and the resolve leave, and which requests were refused. A few minutes: not part of `npm run bench`.
 *
 * The line makes the writes of the paging and resolving polls take as long as at 10,000 clusters, but the evaluation
 * before them is a smaller fleet's. Given `evaluationAtScaleMs`, the time the fan-out coordinator takes to read and
 * evaluate the worst minute of 10,000 clusters (the fleet-scale figures), the throttled case's poller gets that much
 * less of its timeout than this fleet's paging poll took without the line, so that its writes have the time they
 * would have at 10,000.
 */
export async function measureThrottledFleetOutage(
  clusters = THROTTLED_CLUSTERS,
  evaluationAtScaleMs?: number,
): Promise<FleetOutageRow[]> {
  const unthrottled = await caseInChild(0, CASES[0][0], clusters);
  const pagingPollMs = unthrottled.polls?.find((poll) => poll.step === unthrottled.pagedAtSteps?.[0])?.ms;
  const pollerTimeoutMs =
    evaluationAtScaleMs && pagingPollMs
      ? Math.round(POLLER_TIMEOUT_MS - Math.max(0, evaluationAtScaleMs - pagingPollMs))
      : undefined;
  return [unthrottled, await caseInChild(THROTTLED_CASE, 'at the throughput line', clusters, pollerTimeoutMs)];
}

async function caseInChild(
  index: number,
  faults: string,
  clusters: number,
  pollerTimeoutMs?: number,
): Promise<FleetOutageRow> {
  try {
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        self,
        '--case',
        String(index),
        String(clusters),
        ...(pollerTimeoutMs ? ['--poller-timeout', String(pollerTimeoutMs)] : []),
      ],
      {
        timeout: runTimeoutMs(clusters),
        maxBuffer: 1 << 24,
        env: { ...process.env, NODE_OPTIONS: '', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      },
    );
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as FleetOutageRow;
  } catch (error) {
    const failure = error as { killed?: boolean; message: string };
    const reason = failure.killed
      ? `timed out after ${runTimeoutMs(clusters) / 1000} s`
      : failure.message.split('\n')[0];
    return { faults, clusters, completed: false, error: reason ?? 'failed' };
  }
}

function figuresOf(
  name: FunctionName,
  limits: Record<FunctionName, FunctionLimits>,
  invocations: readonly FleetInvocation[],
): FunctionFigures {
  const own = invocations.filter((invocation) => invocation.function === name);
  return {
    function: name,
    ...limits[name],
    invocations: own.length,
    failed: own.filter((invocation) => invocation.error !== undefined).length,
    slowestMs: Math.max(0, ...own.map((invocation) => invocation.ms)),
    mostCpuMs: Math.max(0, ...own.map((invocation) => invocation.cpuMs)),
    peakHeapMb: Math.max(0, ...own.map((invocation) => invocation.peakHeapMb)),
    peakRssMb: Math.max(0, ...own.map((invocation) => invocation.peakRssMb)),
    withinLimits: own.every(withinLimits),
  };
}

/** A poll: its figures, and what its summary says it did (`claim`, notifications delivered, unreadable clusters). */
interface PollFigures {
  readonly step: number;
  readonly ms: number;
  readonly cpuMs: number;
  readonly peakHeapMb: number;
  readonly peakRssMb: number;
  readonly claim?: string;
  readonly delivered?: number;
  readonly unreadableClusters?: number;
  /** The step whose incidents the poll ran out of time to save, and how far it got. */
  readonly unfinished?: PollSummary['unfinished'];
  readonly error?: string;
}

function pollOf({ step, ms, cpuMs, peakHeapMb, peakRssMb, result, error }: FleetInvocation): PollFigures {
  const summary = result as Partial<PollSummary> | undefined;
  return {
    step,
    ms,
    cpuMs,
    peakHeapMb,
    peakRssMb,
    ...(summary && {
      claim: summary.claim,
      delivered: summary.delivered,
      unreadableClusters: summary.unreadableClusters,
      ...(summary.unfinished && { unfinished: summary.unfinished }),
    }),
    ...(error !== undefined && { error }),
  };
}

/**
 * Every function's DynamoDB requests through the throughput proxy, each partition's largest share of one poll, and,
 * given a line, the requests it refused.
 */
function partitionHeat(limits?: ReturnType<typeof scaledThroughput>) {
  let meter: DynamoDbThroughputProxy | undefined;
  let before = new Map<string, PartitionUsage>();
  const hottest = new Map<string, HotPartition>();
  return {
    meter: async (dynalite: string) => {
      meter = await startDynamoDbThroughputProxy({ target: dynalite, limits: limits ?? 'unlimited' });
      return meter;
    },
    throttled: () => Object.fromEntries(meter?.throttledRequests ?? []),
    pollEnded: ({ step, ms }: FleetInvocation) => {
      if (!meter) return;
      for (const [partition, now] of meter.partitions) {
        const was = before.get(partition) ?? { readUnits: 0, writeUnits: 0 };
        const writeUnits = now.writeUnits - was.writeUnits;
        const readUnits = now.readUnits - was.readUnits;
        if (writeUnits > (hottest.get(partition)?.writeUnits ?? 0)) {
          hottest.set(partition, { partition, writeUnits, readUnits, step, pollMs: ms });
        }
      }
      before = new Map([...meter.partitions].map(([partition, usage]) => [partition, { ...usage }]));
    },
    hottest: () => [...hottest.values()].sort((a, b) => b.writeUnits - a.writeUnits).slice(0, HOT_PARTITIONS),
  };
}

/** One case, in this (child) process: prints its FleetOutageRow. */
async function runCase(index: number, clusters: number, pollerTimeoutMs?: number): Promise<FleetOutageRow> {
  const throttled = index === THROTTLED_CASE;
  const [faults, plan] = throttled ? (['at the throughput line', undefined] as const) : (CASES[index] ?? CASES[0]);
  const started = performance.now();
  const limits = throttled ? scaledThroughput(clusters / FLEET_OUTAGE_CLUSTERS) : undefined;
  const heat = partitionHeat(limits);
  const outage = await runFleetOutage({
    clusters,
    ...(plan && { faults: plan() }),
    ...(process.env.FLEET_OUTAGE_LOGS && { logDirectory: process.env.FLEET_OUTAGE_LOGS }),
    interposeDynamoDb: heat.meter,
    // The poller paces its writes to the line it is told, as it does to DynamoDB's own.
    ...(limits && { partitionWriteUnits: limits.partitionWriteUnits }),
    ...(pollerTimeoutMs && { pollerTimeoutMs }),
    // Each poll as it ends, for whoever watches a long run.
    onInvocation: (invocation) => {
      if (invocation.function !== 'poller') return;
      heat.pollEnded(invocation);
      process.stderr.write(`${JSON.stringify(pollOf(invocation))}\n`);
    },
  });
  const totalMs = performance.now() - started;
  const [page, resolve, lone, ...more] = outage.subjects;
  const [fleetIncident, loneIncident, ...moreIncidents] = outage.pagerDuty;
  const fleetSuffix = `and ${clusters - 2} more (us-east-1)`;
  return {
    faults,
    clusters,
    completed: true,
    pagedAsExpected:
      more.length === 0 &&
      (page?.startsWith('[PAGE]') ?? false) &&
      (page?.endsWith(fleetSuffix) ?? false) &&
      (resolve?.startsWith('[RESOLVED]') ?? false) &&
      (resolve?.endsWith(fleetSuffix) ?? false) &&
      (lone?.includes(LONE_CLUSTER) ?? false) &&
      moreIncidents.length === 0 &&
      fleetIncident?.status === 'resolved' &&
      fleetIncident.triggers === 1 &&
      loneIncident?.status === 'triggered' &&
      loneIncident.triggers === 1,
    subjects: outage.subjects,
    pagedAtSteps: outage.paged.map((message) => message.step),
    published: outage.paged,
    ...(limits && {
      throughputLine: {
        partitionWriteUnits: limits.partitionWriteUnits,
        partitionReadUnits: limits.partitionReadUnits,
      },
      throttledRequests: heat.throttled(),
    }),
    ...(pollerTimeoutMs && { pollerTimeoutMs }),
    totalMs,
    polls: outage.invocations.filter((invocation) => invocation.function === 'poller').map(pollOf),
    functions: FUNCTION_NAMES.map((name) =>
      figuresOf(name, functionLimits(clusters, pollerTimeoutMs), outage.invocations),
    ),
    withinLimits: outage.invocations.every(withinLimits),
    struck: outage.struck,
    ...(outage.dynalitePeakRssMb !== undefined && { dynalitePeakRssMb: outage.dynalitePeakRssMb }),
    hottestPartitions: heat.hottest(),
    loadAverage: loadavg()[0] ?? 0,
  };
}

if (process.argv[1] === self) {
  const caseAt = process.argv.indexOf('--case');
  if (caseAt >= 0) {
    const timeoutAt = process.argv.indexOf('--poller-timeout');
    const row = await runCase(
      Number(process.argv[caseAt + 1]),
      Number(process.argv[caseAt + 2]),
      timeoutAt >= 0 ? Number(process.argv[timeoutAt + 1]) : undefined,
    );
    console.log(JSON.stringify(row));
  } else {
    const { renderResults } = await import('./report.ts');
    const file = fileURLToPath(new URL('./results.json', import.meta.url));
    const previous = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
    const throttledAt = process.argv.indexOf('--throttled');
    // What the last `npm run bench` measured: the coordinator's worst minute of 10,000 clusters.
    const atScale = previous.fleet?.find((row) => row.clusters === FLEET_OUTAGE_CLUSTERS)?.fanOut?.figures;
    const rows =
      throttledAt >= 0
        ? {
            fleetOutageThrottled: await measureThrottledFleetOutage(
              Number(process.argv[throttledAt + 1] ?? THROTTLED_CLUSTERS),
              atScale?.coordinatorMs,
            ),
          }
        : { fleetOutage: await measureFleetOutage(Number(process.argv[2] ?? FLEET_OUTAGE_CLUSTERS)) };
    const results = { ...previous, ...rows };
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(fileURLToPath(new URL('./RESULTS.md', import.meta.url)), renderResults(results));
    for (const row of Object.values(rows).flat())
      process.stderr.write(`${JSON.stringify({ ...row, polls: undefined })}\n`);
  }
}
