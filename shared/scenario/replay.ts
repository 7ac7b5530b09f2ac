import type { DeploymentConfig } from '../config/deployment-config.ts';
import type { Incident } from '../engine/incident.ts';
import type { Notification } from '../engine/notification.ts';
import type { RuleSet } from '../engine/rule-set.ts';
import { SeriesWindow, type SignalWindow } from '../engine/signal-window.ts';
import type { SignalName } from '../engine/signals.ts';
import { InputError } from '../errors.ts';
import { buildPlan } from '../pipeline/build-plan.ts';
import { memoryStores } from '../pipeline/memory-stores.ts';
import { runPoll } from '../pipeline/poll.ts';
import type { Activity, MetricReading, MetricRequest, MetricSource, Notifier, Tripwires } from '../pipeline/ports.ts';
import { type CheckResult, checkExpectations } from './expectations.ts';
import type { Scenario } from './scenario.ts';

/** A scenario served as if it were CloudWatch: the window at step `end` sees samples up to that step. */
export class ScenarioMetricSource implements MetricSource {
  constructor(private readonly scenario: Scenario) {}

  async read(request: MetricRequest): Promise<MetricReading> {
    const index = Math.round((request.end - this.scenario.start) / (this.scenario.stepSeconds * 1000));
    const windows = new Map<string, SignalWindow>();
    for (const cluster of request.clusters) {
      const series = this.scenario.clusters.get(cluster);
      if (series) windows.set(cluster, new SeriesWindow(series, this.scenario.stepSeconds, index));
    }
    return { windows, metricsRequested: 0, unreadable: [] };
  }
}

/**
 * The tripwire alarm emulated on the scenario: a write p99 at or above the threshold, or no datapoint (missing data
 * is breaching), at step t arms the poll of step t + 1, as the alarm's state change reaches the poller the minute
 * after. A cluster without the signal has no tripwire.
 */
export class ScenarioTripwires implements Tripwires {
  constructor(
    private readonly scenario: Scenario,
    private readonly threshold: number,
  ) {}

  async armed(at: number): Promise<ReadonlySet<string>> {
    const index = Math.round((at - this.scenario.start) / (this.scenario.stepSeconds * 1000)) - 1;
    const armed = new Set<string>();
    if (index < 0) return armed;
    for (const [cluster, series] of this.scenario.clusters) {
      const written = series['apiserver.write.p99'];
      const value = written?.[index] ?? null;
      if (written && (value === null || value >= this.threshold)) armed.add(cluster);
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
  readonly checks: readonly CheckResult[];
  /** Everything the in-memory stores recorded (incidents, outbox, polls), as the digest reads it from DynamoDB. */
  readonly activity: Activity;
}

export interface ReplayOptions {
  readonly ruleSet: RuleSet;
  readonly config?: DeploymentConfig;
}

/** Feed a scenario, step by step, through the poll path the deployed poller runs, with an in-memory store. */
export async function replayScenario(scenario: Scenario, options: ReplayOptions): Promise<ReplayResult> {
  const unknownRules = scenario.expect.filter((e) => e.rule !== undefined && !options.ruleSet.get(e.rule));
  if (unknownRules.length > 0) {
    throw new InputError(
      scenario.file,
      unknownRules.map((e) => ({ path: `${e.path}.rule`, message: `unknown rule "${e.rule}"` })),
    );
  }
  const plan = buildPlan({
    ruleSet: options.ruleSet,
    ...(options.config && { config: options.config }),
    clusters: [...scenario.clusters.keys()],
    maintenance: scenario.maintenance,
    maintenanceDeclaredBy: scenario.file,
    stepSeconds: scenario.stepSeconds,
  });
  let clock = scenario.start;
  const stores = memoryStores(() => clock);
  const notifier = new CollectingNotifier();
  const deps = {
    plan,
    metrics: new ScenarioMetricSource(scenario),
    ...stores,
    notifier,
    tripwires: new ScenarioTripwires(scenario, plan.cadence.tripwireWriteP99Seconds),
    owner: 'replay',
    now: () => clock,
    leaseMs: 60_000,
  };
  const skipped = new Map<string, SkippedRule>();
  for (let index = 0; index < scenario.steps; index++) {
    clock = scenario.start + index * scenario.stepSeconds * 1000;
    const report = await runPoll(deps, clock);
    for (const finding of report.findings) {
      if (finding.verdict === 'skipped') {
        skipped.set(`${finding.cluster}/${finding.rule}`, {
          cluster: finding.cluster,
          rule: finding.rule,
          lacking: finding.lacking,
        });
      }
    }
  }
  return {
    scenario,
    notifications: notifier.sent,
    incidents: stores.incidents.all(),
    skipped: [...skipped.values()],
    checks: checkExpectations(scenario.expect, notifier.sent),
    activity: await stores.activityLog.activityBetween(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY),
  };
}
