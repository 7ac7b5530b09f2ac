import { REPAIR_ARMS_POLLING_MS, repairsArmUntil, withChurnCompanions } from '../churn/node-termination.ts';
import { displayNameOf } from '../config/cluster-identity.ts';
import type { DeploymentConfig } from '../config/deployment-config.ts';
import { deployedTripwires } from '../config/deployment-shape.ts';
import { coverageOf, type RuleCoverage } from '../engine/coverage.ts';
import { evaluateCondition } from '../engine/evaluate-condition.ts';
import type { Incident } from '../engine/incident.ts';
import type { Notification } from '../engine/notification.ts';
import type { RuleSet } from '../engine/rule-set.ts';
import { type SeriesBySignal, SeriesWindow, type SignalWindow } from '../engine/signal-window.ts';
import type { SignalName } from '../engine/signals.ts';
import { InputError } from '../errors.ts';
import { buildPlan } from '../pipeline/build-plan.ts';
import { memoryStores } from '../pipeline/memory-stores.ts';
import { runPoll } from '../pipeline/poll.ts';
import type {
  Activity,
  ArmedClusters,
  MetricReading,
  MetricRequest,
  MetricSource,
  Notifier,
  Tripwires,
} from '../pipeline/ports.ts';
import { type TripwireSettings, tripwireDefinition, tripwireStates } from '../pipeline/tripwire-alarm.ts';
import type { WatchPlan } from '../pipeline/watch-plan.ts';
import { type CheckResult, checkExpectations } from './expectations.ts';
import type { Scenario } from './scenario.ts';

/** A scenario served as if it were CloudWatch: the window at step `end` sees samples up to that step. */
export class ScenarioMetricSource implements MetricSource {
  private readonly clusters: ReadonlyMap<string, SeriesBySignal>;

  constructor(private readonly scenario: Scenario) {
    this.clusters = new Map([...scenario.clusters].map(([name, series]) => [name, withChurnCompanions(series)]));
  }

  async read(request: MetricRequest): Promise<MetricReading> {
    const index = Math.round((request.end - this.scenario.start) / (this.scenario.stepSeconds * 1000));
    const windows = new Map<string, SignalWindow>();
    for (const cluster of request.clusters) {
      const series = this.clusters.get(cluster);
      if (series) windows.set(cluster, new SeriesWindow(series, this.scenario.stepSeconds, index));
    }
    return { windows, metricsRequested: 0, unreadable: [] };
  }
}

/**
 * The tripwire alarms emulated on the scenario: the definition infra/tripwires.ts deploys, its datapoints evaluated on
 * the scenario's signals and its state as CloudWatch evaluates them (`alarmInAlarm`: 1 of the last 3 datapoints
 * breaching, missing ones skipped while enough are present in the evaluation range, else breaching). The alarm in
 * ALARM after the datapoint of step t arms the poll of step t + 1, as the alarm's state change reaches the poller the
 * minute after. Before the scenario starts, the cluster reported and was calm. A cluster that provides none of what a
 * leg needs has no tripwire, as it has no alarm when deployed. A termination that could be a repair arms its cluster
 * for a while after it, from the poll of its own step, as the node-churn function does when deployed.
 */
export class ScenarioTripwires implements Tripwires {
  /** Each cluster's alarm state after each step: in ALARM or not. */
  private readonly states: ReadonlyMap<string, readonly boolean[]>;

  constructor(
    private readonly scenario: Scenario,
    settings: TripwireSettings | undefined,
    config?: DeploymentConfig,
  ) {
    const states = new Map<string, readonly boolean[]>();
    // A configured cluster has a tripwire only where the synthesized deployment gives it one.
    const configured = config && new Set(config.clusters.map(displayNameOf));
    const deployed = config && deployedTripwires(config);
    for (const [cluster, series] of scenario.clusters) {
      if (configured?.has(cluster) && !deployed?.has(cluster)) continue;
      const definition = settings && tripwireDefinition(settings, (signal) => series[signal] !== undefined);
      if (definition) {
        states.set(
          cluster,
          tripwireStates(definition, scenario.steps, (signal, index) => series[signal]?.[index] ?? null),
        );
      }
    }
    this.states = states;
  }

  async armed(at: number): Promise<ArmedClusters> {
    return { byAlarm: this.byAlarm(at), byNodeChurn: this.byNodeChurn(at) };
  }

  private byAlarm(at: number): ReadonlySet<string> {
    const index = Math.round((at - this.scenario.start) / (this.scenario.stepSeconds * 1000)) - 1;
    const armed = new Set<string>();
    if (index < 0) return armed;
    for (const [cluster, states] of this.states) if (states[index]) armed.add(cluster);
    return armed;
  }

  private byNodeChurn(at: number): ReadonlySet<string> {
    // Unlike an alarm on CloudWatch data, a termination reaches the node-churn function as an event within seconds,
    // while the poll that evaluates its minute runs the ingestion lag and a minute later: the repairs of the step
    // being read have already armed it, so that step's own repairs count, not only the ones before it.
    const index = Math.round((at - this.scenario.start) / (this.scenario.stepSeconds * 1000));
    const stepMs = this.scenario.stepSeconds * 1000;
    const recent = Math.round(REPAIR_ARMS_POLLING_MS / stepMs);
    const armed = new Set<string>();
    for (const [cluster, series] of this.scenario.clusters) {
      const possibleRepairs = (i: number) =>
        Math.max(
          0,
          (series['nodes.replaced']?.[i] ?? 0) -
            (series['nodes.interrupted']?.[i] ?? 0) -
            (series['nodes.scaledin']?.[i] ?? 0),
        );
      // The repairs the node-churn function would have noted by each step, as times: armed until their `until`.
      const times: number[] = [];
      for (let i = Math.max(0, index - 2 * recent); i <= index; i++) {
        const repairs = possibleRepairs(i);
        for (let n = 0; n < repairs; n++) times.push(i * stepMs);
        const until = repairs > 0 ? repairsArmUntil(times) : undefined;
        if (until !== undefined && until > index * stepMs) armed.add(cluster);
      }
    }
    return armed;
  }
}

/** Keeps what would have been published, in order. */
export class CollectingNotifier implements Notifier {
  readonly sent: Notification[] = [];

  async publish(notification: Notification) {
    this.sent.push(notification);
    return { messageId: `replay-${this.sent.length}` };
  }
}

export interface SkippedRule {
  readonly cluster: string;
  readonly rule: string;
  readonly lacking: readonly SignalName[];
}

export interface ReplayResult {
  readonly scenario: Scenario;
  readonly notifications: readonly Notification[];
  readonly incidents: readonly Incident[];
  readonly skipped: readonly SkippedRule[];
  /** Every rule on every cluster: full, partial (naming the signals it runs without) or skipped. */
  readonly coverage: readonly RuleCoverage[];
  readonly checks: readonly CheckResult[];
  /** Everything the in-memory stores recorded (incidents, outbox, polls), as the digest reads it from DynamoDB. */
  readonly activity: Activity;
}

export interface ReplayOptions {
  readonly ruleSet: RuleSet;
  readonly config?: DeploymentConfig;
}

/**
 * What each rule can read on each cluster. It depends on which signals a cluster provides, never on their values,
 * so one evaluation per cluster and rule tells it, whether or not the cadence read the cluster at all.
 */
function scenarioCoverage(scenario: Scenario, plan: WatchPlan): RuleCoverage[] {
  return plan.clusters.flatMap(({ name, rules }) => {
    const window = new SeriesWindow(withChurnCompanions(scenario.clusters.get(name) ?? {}), scenario.stepSeconds, 0);
    return rules.map(({ rule, params }) =>
      coverageOf({ cluster: name, rule: rule.id, ...evaluateCondition(rule.when, window, params) }),
    );
  });
}

/** Feed a scenario, step by step, through the poll path the deployed poller runs, with an in-memory store. */
export async function replayScenario(scenario: Scenario, options: ReplayOptions): Promise<ReplayResult> {
  const unknown = (rule: string | undefined) => rule !== undefined && !options.ruleSet.get(rule);
  const unknownRules = [
    ...scenario.expect.filter((e) => unknown(e.rule)).map((e) => ({ path: `${e.path}.rule`, rule: e.rule })),
    ...(scenario.silences ?? []).flatMap((silence, index) =>
      unknown(silence.rule) ? [{ path: `$.silences[${index}].rule`, rule: silence.rule }] : [],
    ),
  ];
  if (unknownRules.length > 0) {
    throw new InputError(
      scenario.file,
      unknownRules.map((e) => ({ path: e.path, message: `unknown rule "${e.rule}"` })),
    );
  }
  const plan = buildPlan({
    ruleSet: options.ruleSet,
    ...(options.config && { config: options.config }),
    clusters: [...scenario.clusters.keys()],
    maintenance: scenario.maintenance,
    maintenanceDeclaredBy: scenario.file,
    stepSeconds: scenario.stepSeconds,
    ...(scenario.grouping && { grouping: scenario.grouping }),
    ...(scenario.labels && { labels: scenario.labels }),
    ...(scenario.regions && { regions: scenario.regions }),
  });
  let clock = scenario.start;
  const stores = memoryStores(() => clock);
  // Silences go into the store, as `sentinel silence add` puts them in the table: the poll reads them from there.
  for (const silence of scenario.silences ?? []) await stores.silences.add(silence);
  const notifier = new CollectingNotifier();
  const deps = {
    plan,
    metrics: new ScenarioMetricSource(scenario),
    ...stores,
    notifier,
    tripwires: new ScenarioTripwires(scenario, plan.cadence.tripwire, options.config),
    owner: 'replay',
    now: () => clock,
    leaseMs: 60_000,
  };
  for (let index = 0; index < scenario.steps; index++) {
    clock = scenario.start + index * scenario.stepSeconds * 1000;
    await runPoll(deps, clock);
  }
  const covered = scenarioCoverage(scenario, plan);
  return {
    scenario,
    notifications: notifier.sent,
    incidents: stores.incidents.all(),
    skipped: covered
      .filter((c) => c.status === 'skipped')
      .map((c) => ({ cluster: c.cluster, rule: c.rule, lacking: c.missing })),
    coverage: covered,
    checks: checkExpectations(scenario.expect, notifier.sent),
    activity: await stores.activityLog.activityBetween(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY),
  };
}
