/**
 * A child process that runs the worst minute of a generated fleet as the deployed poller does when the step is larger
 * than one shard: runPoll with a fan-out whose queue starts one process per shard (bench/fleet-shard.ts, each a shard
 * worker), all at once as the event source mapping's SHARD_WORKERS would, and whose findings store is what they
 * print. The coordinator refreshes the tripwires beside the shards, as the poller does on a slow cycle's first step
 * (bench/fleet-refresh.ts). Prints one JSON line: a FanOutFigures.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { SQS_SHARD_MESSAGE } from '../aws/sqs/shard-message.ts';
import { MemoryShardFindings } from '../shared/pipeline/memory-shard-findings.ts';
import { memoryStores } from '../shared/pipeline/memory-stores.ts';
import { runPoll } from '../shared/pipeline/poll.ts';
import { SHARD_SIZE, type ShardTask } from '../shared/pipeline/shards.ts';
import { CollectingNotifier } from '../shared/scenario/replay.ts';
import { FLEET_STEP_AT, fleetPlan, fleetRecordedTripwires } from '../support/fleet-generator.ts';
import { type FleetRefreshFigures, fleetRefresh } from './fleet-refresh.ts';
import type { ShardFigures } from './fleet-shard.ts';

export interface FanOutFigures {
  readonly clusters: number;
  readonly shardSize: number;
  /** From the poll's start to its step committed: what must fit the minute. */
  readonly coordinatorMs: number;
  /** The coordinator's own CPU time: claiming, planning, waiting, and the step over every shard's findings. */
  readonly coordinatorCpuMs: number;
  readonly coordinatorPeakRssMb: number;
  readonly shards: readonly Omit<ShardFigures, 'report'>[];
  readonly unreadableClusters: number;
  readonly pagedClusters: number;
  readonly pages: number;
  /** The coordinator's tripwire refresh, beside the shards. */
  readonly refresh: FleetRefreshFigures;
}

const size = Number(process.argv[2]);
const heapMb = Number(process.argv[3]);
const plan = fleetPlan(size);
const findings = new MemoryShardFindings();
const shards: Omit<ShardFigures, 'report'>[] = [];
const running: Promise<void>[] = [];

function runShard(task: ShardTask): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [
        `--max-old-space-size=${heapMb}`,
        '--import',
        'tsx',
        fileURLToPath(new URL('./fleet-shard.ts', import.meta.url)),
        String(size),
      ],
      { maxBuffer: 1 << 28, env: process.env },
      (error, stdout) => {
        if (error) return reject(error);
        const { report, ...figures } = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as ShardFigures;
        shards.push(figures);
        void findings.report(report).then(resolve, reject);
      },
    );
    child.stdin?.end(JSON.stringify(task));
  });
}

const notifier = new CollectingNotifier();
const refresh = fleetRefresh();
const everyCluster = new Set(plan.clusters.map((c) => c.name));
const recorded = fleetRecordedTripwires(size);
const started = performance.now();
const cpuBefore = process.cpuUsage();
const report = await runPoll(
  {
    plan,
    metrics: {
      read: () => {
        throw new Error('a fanned-out poll reads nothing itself');
      },
    },
    ...memoryStores(() => FLEET_STEP_AT),
    notifier,
    tripwires: { armed: async () => ({ byAlarm: everyCluster, byNodeChurn: new Set(), recorded }) },
    tripwireRefresh: refresh.refresh,
    fanOut: {
      queue: {
        ...SQS_SHARD_MESSAGE,
        send: async (messages) => void running.push(...messages.map((m) => runShard(m.task))),
      },
      findings,
      shardSize: SHARD_SIZE,
      waitUntil: FLEET_STEP_AT + 240_000,
      checkEveryMs: 100,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    },
    owner: 'bench',
    now: () => FLEET_STEP_AT,
    leaseMs: 60_000,
  },
  FLEET_STEP_AT,
);
const coordinatorMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
await Promise.all(running);
const pages = notifier.sent.filter((n) => n.kind === 'page');
const figures: FanOutFigures = {
  clusters: size,
  shardSize: SHARD_SIZE,
  coordinatorMs,
  coordinatorCpuMs: (cpu.user + cpu.system) / 1000,
  coordinatorPeakRssMb: process.resourceUsage().maxRSS / 1024,
  shards,
  unreadableClusters: report.unreadableClusters,
  pagedClusters: new Set(pages.flatMap((n) => n.clusters)).size,
  pages: pages.length,
  refresh: refresh.figures(),
};
console.log(JSON.stringify(figures));
