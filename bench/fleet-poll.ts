/**
 * A child process that runs the worst minute of a generated fleet against the loopback CloudWatch, the way the poller
 * Lambda does (real SDK client, CloudWatchMetricSource, runPoll and the engine): every tripwire armed, as a regional
 * metric delay arms them, so every cluster is read, in full if it is due on the slow cadence and by a minute read
 * otherwise. The step opens a slow cycle, so the poll also reads every tripwire alarm back and records in DynamoDB the
 * states that changed or near their expiry (bench/fleet-refresh.ts), beside its reads. An in-memory store and notifier keep the rest of the measure on
 * CloudWatch reads and the engine. Prints one JSON line: a FleetPollFigures.
 */
import { cloudWatchClients } from '../aws/clients.ts';
import { CloudWatchMetricSource } from '../aws/cloudwatch/metric-source.ts';
import { memoryStores } from '../shared/pipeline/memory-stores.ts';
import { runPoll } from '../shared/pipeline/poll.ts';
import { CollectingNotifier } from '../shared/scenario/replay.ts';
import {
  FLEET_POLL_AT,
  FLEET_STEP_AT,
  fleetClusters,
  fleetPlan,
  fleetRecordedTripwires,
} from '../support/fleet-generator.ts';
import { type FleetRefreshFigures, fleetRefresh } from './fleet-refresh.ts';

export interface FleetPollFigures {
  readonly clusters: number;
  /** Clusters read in full (due on the slow cadence) and by a minute read (armed between their full reads). */
  readonly fullReads: number;
  readonly minuteReads: number;
  readonly metricsRequested: number;
  readonly getMetricDataCalls: number;
  /** Datapoints the calls could return: what GetMetricData's datapoints-per-second quota counts. */
  readonly datapointsRequested: number;
  readonly unreadableClusters: number;
  readonly pollMs: number;
  readonly readMs: number;
  /** The poll less its CloudWatch reads: the engine's step, and the in-memory store and notifier around it. */
  readonly engineMs: number;
  readonly notifications: number;
  readonly pagedClusters: number;
  /**
   * CPU time the poll process spent (user and system): on a machine shared with other work the wall time is longer
   * than the poll's own, and this tells its share.
   */
  readonly cpuMs: number;
  /** Resident set size before the poll (runtime, SDK and plan loaded) and at its peak. */
  readonly baselineRssMb: number;
  readonly peakRssMb: number;
  /** The tripwire refresh that ran beside the step. */
  readonly refresh: FleetRefreshFigures;
  readonly refreshFailure?: string;
}

const size = Number(process.argv[2]);
const clusters = fleetClusters(size);
const plan = fleetPlan(size);
const source = new CloudWatchMetricSource({
  clientFor: cloudWatchClients(process.env.AWS_REGION),
  clusters,
  signals: plan.ruleSet.signals(),
  now: () => FLEET_POLL_AT,
});
const notifier = new CollectingNotifier();
const refresh = fleetRefresh();
const everyCluster = new Set(clusters.map((c) => c.name));
// What the table holds of the alarms, as the poll's read of its armed tripwires finds it.
const recorded = fleetRecordedTripwires(size);
let readMs = 0;
let fullReads = 0;
let minuteReads = 0;
const baselineRssMb = process.memoryUsage().rss / 1e6;
const started = performance.now();
const cpuBefore = process.cpuUsage();
const report = await runPoll(
  {
    plan,
    metrics: {
      read: async (request) => {
        const readStarted = performance.now();
        const reading = await source.read(request);
        // A minute read names its signals; a full read takes every signal the rules read.
        if (request.signals) minuteReads += request.clusters.length;
        else fullReads += request.clusters.length;
        // The full and the minute reads run side by side: the reads took as long as the longer one.
        readMs = Math.max(readMs, performance.now() - readStarted);
        return reading;
      },
    },
    ...memoryStores(() => FLEET_STEP_AT),
    notifier,
    tripwires: { armed: async () => ({ byAlarm: everyCluster, byNodeChurn: new Set(), recorded }) },
    tripwireRefresh: refresh.refresh,
    owner: 'bench',
    now: () => FLEET_STEP_AT,
    leaseMs: 60_000,
  },
  FLEET_STEP_AT,
);
const pollMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const figures: FleetPollFigures = {
  clusters: size,
  fullReads,
  minuteReads,
  metricsRequested: report.metricsRequested,
  getMetricDataCalls: source.spent.calls,
  datapointsRequested: source.spent.datapoints,
  unreadableClusters: report.unreadableClusters,
  pollMs,
  readMs,
  engineMs: pollMs - readMs,
  notifications: notifier.sent.length,
  pagedClusters: new Set(notifier.sent.filter((n) => n.kind === 'page').flatMap((n) => n.clusters)).size,
  cpuMs: (cpu.user + cpu.system) / 1000,
  baselineRssMb,
  peakRssMb: process.resourceUsage().maxRSS / 1024,
  refresh: refresh.figures(),
  ...(report.tripwireRefreshFailure !== undefined && { refreshFailure: report.tripwireRefreshFailure }),
};
console.log(JSON.stringify(figures));
