import { metricsPerPoll } from '../aws/query-plan.ts';
import type { ClusterConfig } from '../shared/config/deployment-config.ts';
import type { SignalName } from '../shared/engine/signals.ts';
import {
  type TripwireSettings,
  tripwireBreaches,
  tripwireDefinition,
  tripwireValues,
} from '../shared/pipeline/tripwire-alarm.ts';
import type { Scenario } from '../shared/scenario/scenario.ts';
import type { CadenceOption } from './cadence-options.ts';
import type { DeployedStack } from './deployed-stack.ts';
import type { PollFootprint } from './poll-footprint.ts';
import { MINUTES_PER_MONTH, PRICES } from './prices.ts';

/** Lambda's own START, END and REPORT lines per invocation (with the X-Ray trace id), which the poller never writes. */
const PLATFORM_LOG_BYTES = 400;

export const FLEET_SIZES = [1, 10, 100, 1000] as const;

export interface CostInputs {
  readonly stack: DeployedStack;
  /** The example configuration's clusters: the reference cluster is the one that reads the most metrics. */
  readonly exampleClusters: readonly ClusterConfig[];
  /** The signals the rule set reads: the poller requests only their metrics. */
  readonly signals: ReadonlySet<SignalName>;
  /** Share of cluster-minutes read under the cadence in a quiet week (replay of healthy-noisy-week). */
  readonly quietPolledShare: number;
  /** Tripwire alarm state changes per cluster and month, each one an event and an invocation. */
  readonly tripwireChangesPerClusterMonth: number;
  readonly footprint: PollFootprint;
  /** The slow cadences replayed on the corpus: the cost side of their trade-off. */
  readonly cadenceOptions: readonly CadenceOption[];
  /** Poll time added per cluster read (CloudWatch at 50 ms a call, and the engine), from the fleet-scale figures. */
  readonly pollMsPerCluster: number;
}

export interface CostLine {
  readonly item: string;
  /** Dollars a month for the whole deployment. */
  readonly monthly: number;
  readonly basis: string;
}

export interface FleetCost {
  readonly clusters: number;
  readonly lines: readonly CostLine[];
  readonly monthly: number;
  readonly perCluster: number;
  /** The same fleet read every minute, every metric: what the cadence saves. */
  readonly everyMinutePerCluster: number;
}

/** What a cadence costs per cluster-month in CloudWatch (reads and its tripwire alarm), next to how late it pages. */
export interface CadenceCost extends CadenceOption {
  readonly cloudWatchPerClusterMonth: number;
}

export interface CostModel {
  readonly referenceCluster: string;
  readonly metricsPerClusterPoll: number;
  readonly metricsPerCluster: Readonly<Record<string, number>>;
  readonly quietPolledShare: number;
  readonly tripwireChangesPerClusterMonth: number;
  readonly invocationsPerMonth: number;
  readonly fleets: readonly FleetCost[];
  readonly cadences: readonly CadenceCost[];
}

/**
 * Node churn as the cost model prices it, per cluster-month: a reference cluster that replaces ten nodes a day. Each
 * termination brings five events (the lifecycle action, the terminate event, EC2's shutting-down and terminated, and
 * the replacement's running), each one invocation of the node-churn function (256 MB, about 40 ms: bench/RESULTS.md,
 * node churn) and at most three writes (merge the instance, count the termination, arm minute polling); every
 * cluster-poll adds one query of the cluster's terminations. Events forwarded from workload accounts are billed as
 * cross-account events.
 */
export const NODE_CHURN = {
  terminationsPerClusterMonth: 300,
  eventsPerTermination: 5,
  writeUnitsPerEvent: 3,
  readUnitsPerClusterPoll: 0.5,
  functionMemoryMb: 256,
  msPerEvent: 40,
} as const;

/** The node-churn line: the function, its writes, the poller's reads and the forwarded events. */
function nodeChurnCost(clusters: number, clusterPolls: number): { monthly: number; basis: string } {
  const events = clusters * NODE_CHURN.terminationsPerClusterMonth * NODE_CHURN.eventsPerTermination;
  const gbSeconds = (events * NODE_CHURN.msPerEvent * NODE_CHURN.functionMemoryMb) / 1024 / 1000;
  const monthly =
    events * (PRICES.lambdaRequest + PRICES.eventBridgeCrossAccountEvent) +
    gbSeconds * PRICES.lambdaArmGbSecond +
    events * NODE_CHURN.writeUnitsPerEvent * PRICES.dynamoWriteUnit +
    clusterPolls * NODE_CHURN.readUnitsPerClusterPoll * PRICES.dynamoReadUnit;
  return {
    monthly,
    basis: `${Math.round(events).toLocaleString('en-US')} node events (${NODE_CHURN.terminationsPerClusterMonth} terminations per cluster), one query per cluster-poll`,
  };
}

/**
 * Monthly cost of a deployment of `clusters` reference clusters: what scales with clusters (metrics read, tripwire
 * alarms and their events, poll time), and what the stack costs whatever its size (the schedule, DynamoDB and logs
 * per invocation, tracing, the key, the dashboard, the pipeline's own alarms).
 */
export function costModel(inputs: CostInputs): CostModel {
  const metricsPerCluster = Object.fromEntries(
    inputs.exampleClusters.map((c) => [c.name, metricsPerPoll([c], inputs.signals)]),
  );
  const tripwireMetricsPerCluster = inputs.stack.tripwireAlarmMetrics / inputs.exampleClusters.length;
  const [referenceCluster, metricsPerClusterPoll] = Object.entries(metricsPerCluster).reduce((a, b) =>
    b[1] > a[1] ? b : a,
  );
  const rate = /^rate\((\d+) minutes?\)$/.exec(inputs.stack.pollSchedule);
  if (!rate) throw new Error(`the poll schedule ${inputs.stack.pollSchedule} is not a rate in minutes`);
  const invocationsPerMonth = MINUTES_PER_MONTH / Number(rate[1]);
  const fleets = FLEET_SIZES.map((clusters) => fleetCost(inputs, clusters, metricsPerClusterPoll, invocationsPerMonth));
  return {
    referenceCluster,
    metricsPerClusterPoll,
    metricsPerCluster,
    quietPolledShare: inputs.quietPolledShare,
    tripwireChangesPerClusterMonth: inputs.tripwireChangesPerClusterMonth,
    invocationsPerMonth,
    fleets,
    cadences: inputs.cadenceOptions.map((option) => ({
      ...option,
      cloudWatchPerClusterMonth:
        option.quietPolledShare * MINUTES_PER_MONTH * metricsPerClusterPoll * PRICES.getMetricDataPerMetric +
        (option.tripwire ? tripwireMetricsPerCluster * PRICES.alarmMetricMonth : 0),
    })),
  };
}

function fleetCost(inputs: CostInputs, clusters: number, metrics: number, invocations: number): FleetCost {
  const { stack, footprint } = inputs;
  const share = inputs.quietPolledShare;
  // The stack synthesized for the example configuration has one tripwire per cluster in its region, billed per metric.
  const tripwiresPerCluster = stack.tripwireAlarmMetrics / inputs.exampleClusters.length;
  const clusterPolls = clusters * MINUTES_PER_MONTH * share;
  const tripwireEvents = clusters * inputs.tripwireChangesPerClusterMonth;
  const allInvocations = invocations + tripwireEvents;
  const seconds = (allInvocations * footprint.medianDurationMs + clusterPolls * inputs.pollMsPerCluster) / 1000;
  const gbSeconds = (seconds * stack.poller.memoryMb) / 1024;
  const readUnits = invocations * footprint.readUnitsPerInvocation + tripwireEvents * footprint.tripwireEvent.readUnits;
  const writeUnits =
    invocations * footprint.writeUnitsPerInvocation + tripwireEvents * footprint.tripwireEvent.writeUnits;
  const logGb = (allInvocations * (footprint.logBytesPerInvocation + PLATFORM_LOG_BYTES)) / 1e9;
  const line = (item: string, monthly: number, basis: string): CostLine => ({ item, monthly, basis });
  const churn = nodeChurnCost(clusters, clusterPolls);
  const lines = [
    line(
      'CloudWatch GetMetricData',
      clusterPolls * metrics * PRICES.getMetricDataPerMetric,
      `${metrics} metrics × ${Math.round(clusterPolls).toLocaleString('en-US')} cluster-polls (${(share * 100).toFixed(1)} % of cluster-minutes)`,
    ),
    line(
      'Tripwire alarms',
      clusters * tripwiresPerCluster * PRICES.alarmMetricMonth,
      `${tripwiresPerCluster} alarm metrics per cluster (one metric-math alarm)`,
    ),
    line(
      'Lambda compute',
      gbSeconds * PRICES.lambdaArmGbSecond,
      `${Math.round(gbSeconds).toLocaleString('en-US')} GB-s at ${stack.poller.memoryMb} MB (arm64)`,
    ),
    line(
      'Lambda requests',
      allInvocations * PRICES.lambdaRequest,
      `${Math.round(allInvocations).toLocaleString('en-US')} invocations (schedule and tripwire events)`,
    ),
    line('EventBridge Scheduler', invocations * PRICES.schedulerInvocation, 'one poll a minute'),
    line(
      'DynamoDB requests',
      readUnits * PRICES.dynamoReadUnit + writeUnits * PRICES.dynamoWriteUnit,
      `${footprint.readUnitsPerInvocation.toFixed(1)} RRU + ${footprint.writeUnitsPerInvocation.toFixed(1)} WRU per poll, measured`,
    ),
    line('CloudWatch Logs ingestion', logGb * PRICES.logIngestionPerGb, `${(logGb * 1000).toFixed(1)} MB`),
    stack.poller.traced
      ? line('X-Ray traces', allInvocations * PRICES.xrayTrace, 'active tracing, every invocation')
      : line('X-Ray traces', 0, 'tracing off (docs/deploy.md)'),
    line(
      'Pipeline alarms',
      stack.pipelineAlarmMetrics * PRICES.alarmMetricMonth,
      `${stack.pipelineAlarmMetrics} alarm metrics`,
    ),
    line('Dashboard', stack.dashboards * PRICES.dashboardMonth, `${stack.dashboards} dashboard`),
    line('KMS key', stack.keys * PRICES.kmsKeyMonth, `${stack.keys} customer managed key`),
    line('Node churn (events, function, table)', churn.monthly, churn.basis),
  ];
  const monthly = lines.reduce((n, l) => n + l.monthly, 0);
  return {
    clusters,
    lines,
    monthly,
    perCluster: monthly / clusters,
    everyMinutePerCluster: metrics * MINUTES_PER_MONTH * PRICES.getMetricDataPerMetric,
  };
}

/**
 * Tripwire alarm state changes per cluster-month in a scenario: the deployed alarm's definition, evaluated on the
 * scenario's signals as replay evaluates it, changes state whenever its breaching flips, and each change is one
 * EventBridge event.
 */
export function tripwireChangesPerMonth(scenario: Scenario, settings: TripwireSettings): number {
  let changes = 0;
  for (const series of scenario.clusters.values()) {
    const definition = tripwireDefinition(settings, (signal) => series[signal] !== undefined);
    if (!definition) continue;
    const breaching = (index: number) =>
      tripwireBreaches(
        definition,
        tripwireValues((signal) => series[signal]?.[index] ?? null),
      );
    for (let i = 1; i < scenario.steps; i++) if (breaching(i) !== breaching(i - 1)) changes++;
  }
  return (changes / scenario.clusters.size) * (MINUTES_PER_MONTH / scenario.steps);
}
