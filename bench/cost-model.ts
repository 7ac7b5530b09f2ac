import { HEARTBEAT_SECRET_MAX_AGE_SECONDS } from '../aws/vendors/heartbeat.ts';
import { SECRET_MAX_AGE_SECONDS } from '../aws/vendors/secret-values.ts';
import { readConfigFile } from '../io/input-files.ts';
import type { ClusterConfig, DeploymentConfig } from '../shared/config/deployment-config.ts';
import { durationMs } from '../shared/engine/duration.ts';
import type { SignalName } from '../shared/engine/signals.ts';
import { steadyPipelineMetrics } from '../shared/pipeline/pipeline-metrics.ts';
import { metricsPerPoll } from '../shared/pipeline/query-plan.ts';
import { SHARD_SIZE } from '../shared/pipeline/shards.ts';
import { type TripwireSettings, tripwireDefinition, tripwireStates } from '../shared/pipeline/tripwire-alarm.ts';
import { TRIPWIRE_STATE_LIFETIME_MS, tripwireRenewalWindowMs } from '../shared/pipeline/tripwire-state.ts';
import { AWS_PRICES, MINUTES_PER_MONTH, MONTH_MS } from '../shared/pricing/aws-prices.ts';
import type { Scenario } from '../shared/scenario/scenario.ts';
import { WEEK_MS } from '../shared/time.ts';
import { type CostLine, count, type FleetUsage, priceTemplate } from '../support/resource-pricing.ts';
import type { CadenceOption } from './cadence-options.ts';
import type { DeployedFunction, DeployedStack } from './deployed-stack.ts';
import type { ScenarioFigures } from './detection-quality.ts';
import type { FleetScaleRow } from './fleet-scale.ts';
import type { PollFootprint } from './poll-footprint.ts';
import {
  type ConfiguredSecret,
  configuredSecrets,
  type SignalCosts,
  signalCosts,
  smsSubscribers,
} from './signal-costs.ts';

/** Lambda's own START, END and REPORT lines per invocation (with the X-Ray trace id), which the poller never writes. */
const PLATFORM_LOG_BYTES = 400;

export const FLEET_SIZES = [1, 10, 100, 1000] as const;

/** Weekly things a month holds: the digest, and the incidents priced below. */
const WEEKS_PER_MONTH = MONTH_MS / WEEK_MS;

/**
 * Incidents a cluster has a month, as the DynamoDB line prices them: one a week, more than a cluster worth paging for
 * should have. Every poll is priced at the measured quiet poll's units, and each incident adds what the measured
 * outage's polls took beyond as many quiet ones (its tripwire armed, its incident opened, paged and updated).
 */
export const INCIDENTS_PER_CLUSTER_MONTH = WEEKS_PER_MONTH;

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
  /** Notifications per cluster-month in the quiet week: SNS publishes. */
  readonly notificationsPerClusterMonth: number;
  /** The deployment's `dashboard.enabled`: with it, the poller emits every pipeline metric, not only the alarmed. */
  readonly dashboard: boolean;
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
  /** Tripwire refreshes a month, one a slow cycle. */
  readonly tripwireRefreshesPerMonth: number;
  /** States those refreshes write per cluster-month, a conditional put each: renewals, and changes at most. */
  readonly tripwireRefreshWritesPerClusterMonth: number;
  readonly invocationsPerMonth: number;
  readonly fleets: readonly FleetCost[];
  readonly cadences: readonly CadenceCost[];
  /** What the signals the rules read cost a cluster that does not publish them yet, beside the tool's own cost. */
  readonly signals: SignalCosts;
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
  const { ruleSet, config } = readConfigFile(inputs.stack.configFile);
  return {
    signals: signalCosts(ruleSet),
    referenceCluster,
    metricsPerClusterPoll,
    metricsPerCluster,
    quietPolledShare: inputs.quietPolledShare,
    tripwireChangesPerClusterMonth: inputs.tripwireChangesPerClusterMonth,
    tripwireRefreshesPerMonth: tripwireRefreshesPerMonth(config),
    tripwireRefreshWritesPerClusterMonth: tripwireRefreshWritesPerClusterMonth(
      config,
      inputs.tripwireChangesPerClusterMonth,
    ),
    invocationsPerMonth,
    fleets,
    cadences: inputs.cadenceOptions.map((option) => ({
      ...option,
      cloudWatchPerClusterMonth:
        option.quietPolledShare * MINUTES_PER_MONTH * metricsPerClusterPoll * AWS_PRICES.getMetricDataMetric.usd +
        (option.tripwire ? tripwireMetricsPerCluster * AWS_PRICES.standardAlarmMetricMonth.usd : 0),
    })),
  };
}

/** What the cost model reads from the other measurements: the quiet week's replay, the poll footprint, the fleet polls. */
export function costInputsFrom(measured: {
  readonly config: DeploymentConfig;
  readonly signals: ReadonlySet<SignalName>;
  readonly quietWeek: Scenario;
  readonly quiet: ScenarioFigures;
  readonly footprint: PollFootprint;
  readonly fleet: readonly FleetScaleRow[];
  readonly cadenceOptions: readonly CadenceOption[];
}): Omit<CostInputs, 'stack'> {
  const { config, quietWeek, quiet } = measured;
  const smallest = measured.fleet[0]?.figures;
  const largest = measured.fleet.at(-1)?.figures;
  if (!smallest || !largest) throw new Error('bench: the fleet polls are missing');
  return {
    exampleClusters: config.clusters,
    signals: measured.signals,
    quietPolledShare: quiet.polledShare,
    tripwireChangesPerClusterMonth: tripwireChangesPerMonth(quietWeek, config.poll.tripwire),
    footprint: measured.footprint,
    cadenceOptions: measured.cadenceOptions,
    pollMsPerCluster: (largest.pollMs - smallest.pollMs) / (largest.clusters - smallest.clusters),
    notificationsPerClusterMonth:
      (quiet.notifications / quietWeek.clusters.size) * (MINUTES_PER_MONTH / quietWeek.steps),
    dashboard: config.dashboard.enabled,
  };
}

function fleetCost(inputs: CostInputs, clusters: number, metrics: number, invocations: number): FleetCost {
  const { stack, footprint } = inputs;
  const share = inputs.quietPolledShare;
  const clusterPolls = clusters * MINUTES_PER_MONTH * share;
  const tripwireEvents = clusters * inputs.tripwireChangesPerClusterMonth;
  const { config } = readConfigFile(stack.configFile);
  const tripwireRefreshWrites =
    clusters * tripwireRefreshWritesPerClusterMonth(config, inputs.tripwireChangesPerClusterMonth);
  const gbSeconds = (ms: number, fn: DeployedFunction) => (ms / 1000) * (fn.memoryMb / 1024);
  const digests = WEEKS_PER_MONTH;
  const notifications = clusters * inputs.notificationsPerClusterMonth;
  const incidents = clusters * INCIDENTS_PER_CLUSTER_MONTH;
  const nodeEvents = clusters * NODE_CHURN.terminationsPerClusterMonth * NODE_CHURN.eventsPerTermination;
  // Node events of clusters in workload accounts reach the ops account through a forwarding rule, billed per event.
  const inWorkloadAccounts = inputs.exampleClusters.filter((c) => c.accountId !== undefined).length;
  // A minute fans out only when more clusters are due than one shard holds: at the quiet share, never below a
  // shard's worth divided by it. The shards then carry the polls' reading and evaluating, not the poller.
  const dueEachMinute = clusters * share;
  const shardsEachMinute = dueEachMinute > SHARD_SIZE ? Math.ceil(dueEachMinute / SHARD_SIZE) : 0;
  const usage: FleetUsage = {
    clusterScale: clusters / inputs.exampleClusters.length,
    functions: {
      Poller: {
        invocations,
        gbSeconds: gbSeconds(
          invocations * footprint.medianDurationMs + clusterPolls * inputs.pollMsPerCluster,
          stack.poller,
        ),
      },
      // The tripwire function does one write per event; the poll's median duration bounds it.
      Tripwire: {
        invocations: tripwireEvents,
        gbSeconds: gbSeconds(tripwireEvents * footprint.medianDurationMs, stack.tripwire),
      },
      // Weekly, at most its timeout.
      Digest: {
        invocations: digests,
        gbSeconds: gbSeconds(digests * stack.digest.timeoutSeconds * 1000, stack.digest),
      },
      NodeChurn: {
        invocations: nodeEvents,
        gbSeconds: (nodeEvents * NODE_CHURN.msPerEvent * NODE_CHURN.functionMemoryMb) / 1024 / 1000,
      },
      // At most one run per notification (the paging topic's only, in fact), each waiting on the vendors' answers.
      ...(stack.delivery && {
        PagingDelivery: {
          invocations: notifications,
          gbSeconds: gbSeconds(notifications * VENDOR_ANSWER_MS, stack.delivery),
        },
      }),
      ...(stack.shardWorker && {
        ShardWorkersWorker: {
          invocations: MINUTES_PER_MONTH * shardsEachMinute,
          gbSeconds: gbSeconds(shardsEachMinute > 0 ? clusterPolls * inputs.pollMsPerCluster : 0, stack.shardWorker),
        },
      }),
    },
    dynamoReadUnits:
      invocations * footprint.quietPoll.readUnits +
      incidents * footprint.incident.readUnits +
      tripwireEvents * footprint.tripwireEvent.readUnits +
      clusterPolls * NODE_CHURN.readUnitsPerClusterPoll,
    dynamoWriteUnits:
      invocations * footprint.quietPoll.writeUnits +
      incidents * footprint.incident.writeUnits +
      (tripwireEvents + tripwireRefreshWrites) * footprint.tripwireEvent.writeUnits +
      nodeEvents * NODE_CHURN.writeUnitsPerEvent,
    logIngestedGb: ((invocations + tripwireEvents) * (footprint.logBytesPerInvocation + PLATFORM_LOG_BYTES)) / 1e9,
    topicPublishes: notifications + digests,
    serviceEvents: tripwireEvents + nodeEvents,
    forwardedEvents: (nodeEvents * inWorkloadAccounts) / inputs.exampleClusters.length,
  };
  const emitted = steadyPipelineMetrics(inputs.dashboard);
  const secrets = configuredSecrets(config);
  // A warm container reads each of its secrets at most once per cache period: the delivery function only when it runs,
  // the poller (the external heartbeat's) every poll through a cache of an hour.
  const readsEvery = (seconds: number) => MINUTES_PER_MONTH / (seconds / 60);
  const deliveryRuns = usage.functions.PagingDelivery?.invocations ?? 0;
  const readsBy = {
    delivery: Math.min(deliveryRuns, readsEvery(SECRET_MAX_AGE_SECONDS)),
    poller: readsEvery(HEARTBEAT_SECRET_MAX_AGE_SECONDS),
  };
  const kept = (store: ConfiguredSecret['store']) =>
    new Set(secrets.filter((s) => s.store === store).map((s) => s.name)).size;
  const reads = (store: ConfiguredSecret['store']) =>
    secrets.filter((s) => s.store === store).reduce((n, s) => n + readsBy[s.readBy], 0);
  const sms = smsSubscribers(config);
  const smsMessages = (sms.paging + sms.notice) * notifications;
  const lines = [
    line(
      'CloudWatch GetMetricData',
      clusterPolls * metrics * AWS_PRICES.getMetricDataMetric.usd,
      `${metrics} metrics × ${Math.round(clusterPolls).toLocaleString('en-US')} cluster-polls (${(share * 100).toFixed(1)} % of cluster-minutes)`,
    ),
    line(
      'Pipeline custom metrics',
      emitted.length * AWS_PRICES.customMetricMonth.usd,
      `${emitted.length} sent every minute (${inputs.dashboard ? 'the dashboard on: all of them' : 'failure counts only while failing, idle polls among them'})`,
    ),
    ...priceTemplate(stack.resources, usage),
    line(
      'Your secrets (Secrets Manager, Parameter Store)',
      kept('secret') * AWS_PRICES.secretMonth.usd +
        reads('secret') * AWS_PRICES.secretsManagerCall.usd +
        kept('parameter') * AWS_PRICES.standardParameterMonth.usd +
        reads('parameter') * (AWS_PRICES.standardParameterRead.usd + AWS_PRICES.kmsRequest.usd),
      `${kept('secret')} secret(s) and ${kept('parameter')} SecureString parameter(s) the configuration names (vendor keys, webhook URLs, the external heartbeat); at most ${count(reads('secret'))} secret and ${count(reads('parameter'))} parameter reads (vendor keys cached ${SECRET_MAX_AGE_SECONDS / 60} min, the heartbeat's ${HEARTBEAT_SECRET_MAX_AGE_SECONDS / 60} min), each parameter read a KMS request`,
    ),
    line(
      'SMS',
      smsMessages * AWS_PRICES.smsMessagePartUs.usd,
      sms.paging + sms.notice === 0
        ? `no SMS subscribers; each pays $${AWS_PRICES.smsMessagePartUs.usd} per message part (US) for every notification on its topic`
        : `${sms.paging + sms.notice} SMS subscriber(s), ${Math.round(smsMessages).toLocaleString('en-US')} messages at most (US price, one part each)`,
    ),
  ];
  const monthly = lines.reduce((n, l) => n + l.monthly, 0);
  return {
    clusters,
    lines,
    monthly,
    perCluster: monthly / clusters,
    everyMinutePerCluster: metrics * MINUTES_PER_MONTH * AWS_PRICES.getMetricDataMetric.usd,
  };
}

const line = (item: string, monthly: number, basis: string): CostLine => ({ item, monthly, basis });

/** Tripwire refreshes a month, one a slow cycle (none without tripwires). */
function tripwireRefreshesPerMonth(config: DeploymentConfig): number {
  return config.poll.tripwire.enabled ? MONTH_MS / durationMs(config.poll.every) : 0;
}

/**
 * Tripwire states the refreshes write per cluster-month, each a conditional put as the tripwire event's (none without
 * tripwires). A refresh writes a state only when it differs from the recorded one or would expire before a later
 * refresh could renew it (shared/pipeline/tripwire-state.ts). An unchanged state is renewed at the first refresh whose
 * renewal window reaches its expiry, and expires a lifetime after that write: in the steady state it is written once
 * every whole number of cycles that spans the lifetime less the window (69 cycles, 23 hours, at the default 20
 * minutes), or every cycle when the window takes the whole lifetime. An event that records a change
 * renews the state too, so this is at most. A change reaches the table through its event, and the refresh writes it
 * only when that event was lost or not recorded yet: each change is priced as a write, an upper bound. The poll
 * footprint's fleet has no alarms to read back, so these writes are priced per cluster, from the deployment's own
 * cadence and the quiet week's changes.
 */
function tripwireRefreshWritesPerClusterMonth(config: DeploymentConfig, changesPerClusterMonth: number): number {
  if (!config.poll.tripwire.enabled) return 0;
  const cycleMs = durationMs(config.poll.every);
  const cyclesBetweenRenewals = Math.max(
    1,
    Math.ceil((TRIPWIRE_STATE_LIFETIME_MS - tripwireRenewalWindowMs(cycleMs)) / cycleMs),
  );
  return MONTH_MS / (cyclesBetweenRenewals * cycleMs) + changesPerClusterMonth;
}

/**
 * What a delivery run waits on PagerDuty and Opsgenie, assumed, not measured: the loopback vendors answer at once, and
 * the real ones' answer time is not measurable from here. The run's own work is a few table reads and writes.
 */
const VENDOR_ANSWER_MS = 1000;

/**
 * Tripwire alarm state changes per cluster-month in a scenario: the deployed alarm's definition, evaluated on the
 * scenario's signals as replay evaluates it, changes state whenever it goes in or out of ALARM, and each change is one
 * EventBridge event.
 */
export function tripwireChangesPerMonth(scenario: Scenario, settings: TripwireSettings): number {
  let changes = 0;
  for (const series of scenario.clusters.values()) {
    const definition = tripwireDefinition(settings, (signal) => series[signal] !== undefined);
    if (!definition) continue;
    const inAlarm = tripwireStates(definition, scenario.steps, (signal, index) => series[signal]?.[index] ?? null);
    for (let i = 1; i < scenario.steps; i++) if (inAlarm[i] !== inAlarm[i - 1]) changes++;
  }
  return (changes / scenario.clusters.size) * (MINUTES_PER_MONTH / scenario.steps);
}
