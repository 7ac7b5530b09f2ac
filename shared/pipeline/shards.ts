import type { ClusterReading, Finding } from '../engine/step.ts';
import { evaluateObservation } from '../engine/step.ts';
import type { DueReads } from './cadence.ts';
import type { MetricReading, MetricSource } from './ports.ts';
import { observeDue } from './read-due.ts';
import type { WatchPlan } from './watch-plan.ts';

/*
 * The fan-out of a step too large for one invocation (docs/scaling.md): the poller that claimed the step splits its
 * due clusters into shards and hands each to a worker, which reads and evaluates its clusters' signals, the CPU-heavy
 * half of a step, and reports the findings under the step. The poller waits for every shard, then runs the rest of
 * the step (correlate, lifecycle, group, mute, dedup, commit) once over the union, so that a fleet-wide outage is one
 * page as in one process. Below one shard nothing of this runs.
 */

/**
 * Clusters per shard, and shards in flight at once (the worker's event source mapping's maximum concurrency), sized in
 * docs/scaling.md: a shard of minute reads is about half a million datapoints, under 3 s of the region's 180,000 a
 * second, and about 9 s of CPU on a 512 MB worker's 0.29 vCPU; five workers in flight each pace their reads at a
 * fifth of the quotas, so that the fleet stays under them however the shards overlap.
 */
export const SHARD_SIZE = 2_000;
export const SHARD_WORKERS = 5;

/**
 * One shard of a step: the clusters a worker reads and evaluates, and what the poller already knows of them. The
 * clusters are named, so that a task means the same to a worker whose configuration is not yet the poller's (during a
 * deploy); what is known of them is said by position in the shard's clusters, `[...full, ...minute]` (`shardClusters`):
 * in the worst minute every cluster is armed, and under a maintenance window muted too, and naming each again would
 * triple a message of names of up to 128 characters.
 */
export interface ShardTask {
  readonly at: number;
  readonly shard: number;
  readonly shards: number;
  /** The shard's clusters due for a full read, and for a minute read (cadence.ts). */
  readonly full: readonly string[];
  readonly minute: readonly string[];
  /**
   * Positions of its clusters a mute covers at the step: the maintenance rule conditions are evaluated only on these.
   */
  readonly muted: readonly number[];
  /** Positions of its clusters whose tripwire is armed, to tell blind tripwires. */
  readonly armed: readonly number[];
}

/** What a worker found on its shard's clusters: plain values, as the findings store keeps them. */
export interface ShardReport {
  readonly at: number;
  readonly shard: number;
  /** Each cluster read, with every rule's verdict and what the severe conditions of muted clusters observed. */
  readonly clusters: readonly ShardCluster[];
  readonly metricsRequested: number;
  readonly unreadable: MetricReading['unreadable'];
  readonly freshClusters: number;
  readonly blindTripwires: readonly string[];
}

export interface ShardCluster {
  readonly cluster: string;
  readonly findings: readonly Finding[];
  readonly severe: readonly (readonly [rule: string, observed: string])[];
}

/**
 * A shard and the message that carries it to a worker, encoded once: the dealing measures it (`shardMessages`) and
 * the queue sends the same body.
 */
export interface ShardMessage {
  readonly task: ShardTask;
  /** The message's body, as the queue encodes the task. */
  readonly body: string;
  /** Its size as the queue counts it against `maxMessageBytes`. */
  readonly bytes: number;
}

/** How the queue encodes a shard's message, and the most a message may be. */
export interface ShardMessageFormat {
  readonly maxMessageBytes: number;
  encode(task: ShardTask): ShardMessage;
}

/** Hands the shards of a step to the workers: an SQS queue when deployed, a list in tests. */
export interface ShardQueue extends ShardMessageFormat {
  send(messages: readonly ShardMessage[]): Promise<void>;
}

/** Where workers report the findings of their shards, under the step. */
export interface ShardFindings {
  /** Keep a shard's report; the first report of a shard stands, so that a redelivered task changes nothing. */
  report(report: ShardReport): Promise<void>;
  /** The reports of step `at` so far, of the shards numbered below `shards`. */
  reportsOf(at: number, shards: number): Promise<ShardReport[]>;
}

/** How the poller fans out a step: only when its due clusters exceed one shard. */
export interface FanOut {
  readonly queue: ShardQueue;
  readonly findings: ShardFindings;
  /** Clusters per shard (see docs/scaling.md for why). */
  readonly shardSize: number;
  /**
   * Until when the poller waits for the shards of its step: its own time less what it keeps to join them. A time, not
   * a length, because what came before the fan-out (rolling forward a step an earlier poll left unfinished) may have
   * taken most of the invocation.
   */
  readonly waitUntil: number;
  /** How long it sleeps between reads of the findings store. */
  readonly checkEveryMs: number;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * Split a step's due reads into shards of at most `size` clusters, dealt in turn so that each shard gets its share of
 * the full reads: a full read spends 25 times the datapoints of a minute read, and a worker paces its reads at its
 * share of the quotas, so a shard holding all of them would be the step's last by far. Each shard comes encoded as the
 * message that carries it, ready to send.
 *
 * Every shard must also fit one message of the queue, or the poll fails and its retry with it, minute after minute,
 * in the very minute the fleet is armed. At SQS's 1 MiB a shard of `SHARD_SIZE` clusters fits whatever their names:
 * 2,000 pseudo-random names of 128 characters, all armed and muted, make about 273 KB of SQS message, a quarter of it
 * (aws/sqs/shard-message.ts), and it takes some 7,500 to fill it. Where the largest message is still over, on a queue
 * whose line is set lower or with shards of more clusters, the clusters are dealt into more shards, as many more as the
 * largest message is over, until each fits; a shard of one cluster is a few hundred bytes. What more shards cost, as
 * a fleet past 10,000 clusters has anyway: past `SHARD_WORKERS` the rest wait for a worker, a second wave that starts
 * when a first shard is done (about 30 s into the poll by docs/scaling.md's figures) and may not report within the
 * poller's wait (`FanOut.waitUntil`, about 40 s into the poll). A shard that does not is unreadable for the step: its clusters are
 * skipped, not judged, and the step pages on the clusters the other shards read.
 */
export function shardMessages(
  at: number,
  due: DueReads,
  size: number,
  muted: (cluster: string) => boolean,
  armed: ReadonlySet<string>,
  format: ShardMessageFormat,
): ShardMessage[] {
  const clusters = due.full.length + due.minute.length;
  let shards = Math.ceil(clusters / size);
  for (;;) {
    const messages = dealt(at, due, shards, muted, armed).map((task) => format.encode(task));
    const largest = Math.max(0, ...messages.map((message) => message.bytes));
    if (largest <= format.maxMessageBytes || shards >= clusters) return messages;
    shards = Math.min(clusters, Math.max(shards + 1, Math.ceil((shards * largest) / format.maxMessageBytes)));
  }
}

/** The due clusters dealt in turn into `shards` shards. */
function dealt(
  at: number,
  due: DueReads,
  shards: number,
  muted: (cluster: string) => boolean,
  armed: ReadonlySet<string>,
): ShardTask[] {
  const hands = Array.from({ length: shards }, () => ({ full: [] as string[], minute: [] as string[] }));
  [...due.full, ...due.minute].forEach((cluster, index) => {
    const hand = hands[index % shards];
    if (index < due.full.length) hand?.full.push(cluster);
    else hand?.minute.push(cluster);
  });
  return hands.map(({ full, minute }, shard) => {
    const where = (holds: (cluster: string) => boolean) =>
      shardClusters({ full, minute }).flatMap((c, i) => (holds(c) ? [i] : []));
    return { at, shard, shards, full, minute, muted: where(muted), armed: where((c) => armed.has(c)) };
  });
}

/** A task's clusters, in the order its `muted` and `armed` positions count them. */
export function shardClusters(task: Pick<ShardTask, 'full' | 'minute'>): string[] {
  return [...task.full, ...task.minute];
}

export interface ShardDependencies {
  readonly plan: WatchPlan;
  readonly metrics: MetricSource;
  readonly findings: ShardFindings;
}

/**
 * A worker's use case: read the shard's clusters as the poller would (the same full and minute reads), evaluate the
 * rules the poller would on each, and report. A cluster it could not read is reported unreadable, never evaluated.
 */
export async function evaluateShard(deps: ShardDependencies, task: ShardTask): Promise<ShardReport> {
  const names = shardClusters(task);
  const named = (positions: readonly number[]) => new Set(positions.flatMap((p) => names[p] ?? []));
  const { observations, ...read } = await observeDue(
    deps,
    { full: task.full, minute: task.minute },
    task.at,
    named(task.armed),
  );
  const muted = named(task.muted);
  const clusters = observations.map((observation): ShardCluster => {
    const evaluated = evaluateObservation(observation, muted.has(observation.cluster));
    return { cluster: observation.cluster, findings: evaluated.findings, severe: [...evaluated.severe] };
  });
  const report: ShardReport = { at: task.at, shard: task.shard, clusters, ...read };
  await deps.findings.report(report);
  return report;
}

/** A shard's cluster as the evaluate stage left it, for the step that joins the shards. */
export function readingOf(cluster: ShardCluster): ClusterReading {
  return {
    cluster: cluster.cluster,
    findings: cluster.findings,
    firing: new Set(cluster.findings.filter((f) => f.verdict === 'met').map((f) => f.rule)),
    severe: new Map(cluster.severe),
  };
}

/**
 * Send a step's shards and wait for their reports, until `waitUntil` at most. A shard that has not reported by then counts as
 * unreadable for the step: its clusters are left out of it, as a cluster CloudWatch would not answer for is, so that
 * nothing is judged on the absence of its data (no resolve, no new page), and a report that comes later is ignored.
 */
export async function fanOutStep(
  fanOut: FanOut,
  messages: readonly ShardMessage[],
  now: () => number,
): Promise<{ reports: ShardReport[]; late: MetricReading['unreadable'] }> {
  await fanOut.queue.send(messages);
  const tasks = messages.map((message) => message.task);
  const sentAt = now();
  const deadline = fanOut.waitUntil;
  const at = tasks[0]?.at ?? 0;
  let reports = await fanOut.findings.reportsOf(at, tasks.length);
  while (reports.length < tasks.length && now() < deadline) {
    await fanOut.sleep(Math.min(fanOut.checkEveryMs, Math.max(0, deadline - now())));
    reports = await fanOut.findings.reportsOf(at, tasks.length);
  }
  const reported = new Set(reports.map((r) => r.shard));
  const late = tasks
    .filter((t) => !reported.has(t.shard))
    .map((t) => ({
      clusters: shardClusters(t),
      error: `shard ${t.shard + 1} of ${t.shards} did not report within ${Math.round(Math.max(0, deadline - sentAt) / 1000)} s`,
    }));
  return { reports, late };
}
