/**
 * A child process that runs one poll over a generated fleet against the loopback CloudWatch, the way the poller
 * Lambda does (real SDK client, CloudWatchMetricSource, runPoll and the engine), with an in-memory store and
 * notifier so that only CloudWatch reads and the engine are measured. Prints one JSON line: a FleetPollFigures.
 */
import { cloudWatchClients } from '../aws/clients.ts';
import { CloudWatchMetricSource } from '../aws/cloudwatch-metric-source.ts';
import { compileRuleSet } from '../shared/config/deployment-config.ts';
import { buildPlan } from '../shared/pipeline/build-plan.ts';
import { memoryStores } from '../shared/pipeline/memory-stores.ts';
import { runPoll } from '../shared/pipeline/poll.ts';
import { CollectingNotifier } from '../shared/scenario/replay.ts';
import { FLEET_STEP_AT, fleetClusters } from './fleet-generator.ts';

export interface FleetPollFigures {
  readonly clusters: number;
  readonly metricsRequested: number;
  readonly getMetricDataCalls: number;
  readonly unreadableClusters: number;
  readonly pollMs: number;
  readonly readMs: number;
  /** The poll less its CloudWatch reads: the engine's step, and the in-memory store and notifier around it. */
  readonly engineMs: number;
  readonly notifications: number;
  readonly pagedClusters: number;
  /** Resident set size before the poll (runtime, SDK and plan loaded) and at its peak. */
  readonly baselineRssMb: number;
  readonly peakRssMb: number;
}

const size = Number(process.argv[2]);
const clusters = fleetClusters(size);
const plan = buildPlan({
  ruleSet: compileRuleSet([], 'rules'),
  clusters: clusters.map((c) => c.name),
  maintenance: [],
  stepSeconds: 60,
});
const source = new CloudWatchMetricSource({ clientFor: cloudWatchClients(process.env.AWS_REGION), clusters });
const notifier = new CollectingNotifier();
let readMs = 0;
const baselineRssMb = process.memoryUsage().rss / 1e6;
const started = performance.now();
const report = await runPoll(
  {
    plan,
    metrics: {
      read: async (request) => {
        const readStarted = performance.now();
        const reading = await source.read(request);
        readMs += performance.now() - readStarted;
        return reading;
      },
    },
    ...memoryStores(() => FLEET_STEP_AT),
    notifier,
    tripwires: { armed: async () => new Set<string>() },
    pollEveryCluster: true,
    owner: 'bench',
    now: () => FLEET_STEP_AT,
    leaseMs: 60_000,
  },
  FLEET_STEP_AT,
);
const pollMs = performance.now() - started;
const figures: FleetPollFigures = {
  clusters: size,
  metricsRequested: report.metricsRequested,
  getMetricDataCalls: source.spent.calls,
  unreadableClusters: report.unreadableClusters,
  pollMs,
  readMs,
  engineMs: pollMs - readMs,
  notifications: notifier.sent.length,
  pagedClusters: new Set(notifier.sent.filter((n) => n.kind === 'page').flatMap((n) => n.clusters)).size,
  baselineRssMb,
  peakRssMb: process.resourceUsage().maxRSS / 1024,
};
console.log(JSON.stringify(figures));
