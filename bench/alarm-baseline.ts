import type { RuleSet } from '../shared/engine/rule-set.ts';
import type { Sample, SignalName } from '../shared/engine/signals.ts';
import type { Scenario, ScenarioSeries } from '../shared/scenario/scenario.ts';

/**
 * What a careful user deploys instead of this pipeline: one CloudWatch metric alarm per signal, at our thresholds,
 * with cdk-monitoring-constructs' defaults (3 of 3 datapoints, missing data treated as missing), and an OR composite
 * alarm per cluster that notifies on its transitions to ALARM. docs/benchmarks.md cites the AWS pages the evaluation
 * below follows.
 */

type MetricDefinition =
  | { readonly kind: 'gauge' | 'count'; readonly of: SignalName }
  | {
      readonly kind: 'ratio';
      readonly numerator: readonly SignalName[];
      readonly denominator: SignalName;
      /** Metric math `IF(den >= min, num / den)`: below it the datapoint is missing, as our rules skip the sample. */
      readonly minDenominator: number;
    };

export interface AlarmSpec {
  readonly id: string;
  readonly metric: MetricDefinition;
  /** GreaterThanOrEqualToThreshold. */
  readonly threshold: number;
  /** Where the threshold comes from: `rule.param`. */
  readonly from: string;
}

export interface AlarmSettings {
  readonly periodMinutes: number;
  readonly datapointsToAlarm: number;
  readonly evaluationPeriods: number;
  /**
   * Datapoints CloudWatch retrieves to evaluate with missing data (the "evaluation range"); AWS says only that it is
   * more than the evaluation periods, so this takes two more.
   */
  readonly evaluationRange: number;
}

/** The baseline as the issue specifies it: one-minute periods. */
export const SPECIFIED_SETTINGS: AlarmSettings = {
  periodMinutes: 1,
  datapointsToAlarm: 3,
  evaluationPeriods: 3,
  evaluationRange: 5,
};

/** cdk-monitoring-constructs' own default period (DefaultMetricPeriod is five minutes), for comparison. */
export const LIBRARY_DEFAULT_SETTINGS: AlarmSettings = { ...SPECIFIED_SETTINGS, periodMinutes: 5 };

type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export interface ClusterBaseline {
  readonly cluster: string;
  /** Minutes (scenario step index) at which the composite alarm went to ALARM: each one is a notification. */
  readonly compositeAlarms: readonly number[];
  /** Minutes at which the composite was in ALARM, for detection latency. */
  readonly inAlarm: readonly boolean[];
  /** Transitions to ALARM of the metric alarms themselves, if a user subscribed each of them. */
  readonly metricAlarmNotifications: number;
  readonly alarms: readonly string[];
}

/** The alarms a user would create, with the thresholds our default rules use. */
export function baselineAlarms(ruleSet: RuleSet): AlarmSpec[] {
  const param = (rule: string, name: string) => {
    const value = ruleSet.get(rule)?.params[name]?.default;
    if (value === undefined) throw new Error(`rule ${rule} has no parameter ${name}`);
    return { threshold: value, from: `${rule}.${name}` };
  };
  return [
    {
      id: 'write-p99',
      metric: { kind: 'gauge', of: 'apiserver.write.p99' },
      ...param('webhook-blackhole', 'writeP99Seconds'),
    },
    {
      id: 'webhook-p99',
      metric: { kind: 'gauge', of: 'webhook.p99' },
      ...param('webhook-blackhole', 'webhookP99Seconds'),
    },
    {
      id: 'webhook-failure-share',
      metric: { kind: 'ratio', numerator: ['webhook.failures'], denominator: 'webhook.requests', minDenominator: 10 },
      ...param('webhook-blackhole', 'webhookFailureRatio'),
    },
    // What EKS vends for webhooks that fail: rejections, policy denials included (the user cannot tell them apart).
    {
      id: 'webhook-rejection-share',
      metric: {
        kind: 'ratio',
        numerator: ['webhook.rejections'],
        denominator: 'webhook.requests',
        minDenominator: 10,
      },
      ...param('webhook-blackhole', 'rejectionRatio'),
    },
    {
      id: '5xx-share',
      metric: { kind: 'ratio', numerator: ['apiserver.5xx'], denominator: 'apiserver.requests', minDenominator: 50 },
      ...param('webhook-blackhole', 'errorRatio'),
    },
    {
      id: '5xx-429-share',
      metric: {
        kind: 'ratio',
        numerator: ['apiserver.5xx', 'apiserver.429'],
        denominator: 'apiserver.requests',
        minDenominator: 50,
      },
      ...param('control-plane-degraded', 'errorRatio'),
    },
    {
      id: 'notready-share',
      metric: { kind: 'ratio', numerator: ['nodes.notready'], denominator: 'nodes.total', minDenominator: 1 },
      ...param('node-repair-storm', 'notReadyShare'),
    },
    // An alarm sees one period: the closest it gets to "3 nodes in 30 minutes" is 3 nodes in a period.
    {
      id: 'nodes-replaced',
      metric: { kind: 'count', of: 'nodes.replaced' },
      ...param('node-repair-storm', 'minReplaced'),
    },
  ];
}

/** Evaluate every cluster of a scenario as CloudWatch would, minute by minute of sample time. */
export function evaluateBaseline(
  scenario: Scenario,
  alarms: readonly AlarmSpec[],
  settings: AlarmSettings,
): ClusterBaseline[] {
  return [...scenario.clusters].map(([cluster, series]) => {
    const present = alarms.filter((alarm) => signalsOf(alarm.metric).every((signal) => series[signal] !== undefined));
    const periods = Math.floor(scenario.steps / settings.periodMinutes);
    const states = present.map((alarm) => {
      const breaching = Array.from({ length: periods }, (_, period) => {
        const value = datapoint(alarm.metric, series, period * settings.periodMinutes, settings.periodMinutes);
        return value === null ? null : value >= alarm.threshold;
      });
      return evaluateAlarm(breaching, settings);
    });
    let metricAlarmNotifications = 0;
    for (const alarmStates of states) metricAlarmNotifications += transitionsToAlarm(alarmStates).length;
    // The composite's rule is ALARM(a) OR ALARM(b) OR ...: true while any child is in ALARM.
    const composite: AlarmState[] = Array.from({ length: periods }, (_, period) =>
      states.some((s) => s[period] === 'ALARM') ? 'ALARM' : 'OK',
    );
    // A period's datapoint exists once its last minute is over: that minute is when the alarm can change state.
    const minuteOf = (period: number) => period * settings.periodMinutes + settings.periodMinutes - 1;
    const inAlarm = Array.from(
      { length: scenario.steps },
      (_, minute) => composite[Math.floor((minute + 1) / settings.periodMinutes) - 1] === 'ALARM',
    );
    return {
      cluster,
      compositeAlarms: transitionsToAlarm(composite).map(minuteOf),
      inAlarm,
      metricAlarmNotifications,
      alarms: present.map((a) => a.id),
    };
  });
}

function signalsOf(metric: MetricDefinition): SignalName[] {
  return metric.kind === 'ratio' ? [...metric.numerator, metric.denominator] : [metric.of];
}

/** The period's datapoint: Maximum of a gauge, Sum of a count, a ratio of Sums; null when CloudWatch has none. */
function datapoint(metric: MetricDefinition, series: ScenarioSeries, from: number, minutes: number): Sample {
  const values = (signal: SignalName) =>
    (series[signal] ?? []).slice(from, from + minutes).filter((v): v is number => v !== null && Number.isFinite(v));
  const sum = (signal: SignalName) => {
    const present = values(signal);
    return present.length === 0 ? null : present.reduce((a, b) => a + b, 0);
  };
  switch (metric.kind) {
    case 'gauge': {
      const present = values(metric.of);
      return present.length === 0 ? null : Math.max(...present);
    }
    case 'count':
      return sum(metric.of);
    case 'ratio': {
      const denominator = sum(metric.denominator);
      if (denominator === null || denominator < metric.minDenominator) return null;
      return metric.numerator.reduce((total, signal) => total + (sum(signal) ?? 0), 0) / denominator;
    }
  }
}

/**
 * One metric alarm's state after each period, following "Evaluating an alarm" and "How alarm state is evaluated when
 * data is missing": with at least N real datapoints in the evaluation range, the newest N real ones decide (M of them
 * breaching means ALARM); with fewer, the `missing` treatment leaves the missing ones out of the count; with none, the
 * alarm has INSUFFICIENT_DATA.
 */
export function evaluateAlarm(breaching: readonly (boolean | null)[], settings: AlarmSettings): AlarmState[] {
  return breaching.map((_, period) => {
    const range = breaching.slice(Math.max(0, period - settings.evaluationRange + 1), period + 1);
    const real = range.filter((b): b is boolean => b !== null);
    if (real.length === 0) return 'INSUFFICIENT_DATA';
    const evaluated = real.slice(-settings.evaluationPeriods);
    return evaluated.filter(Boolean).length >= settings.datapointsToAlarm ? 'ALARM' : 'OK';
  });
}

function transitionsToAlarm(states: readonly AlarmState[]): number[] {
  return states.flatMap((state, i) => (state === 'ALARM' && states[i - 1] !== 'ALARM' ? [i] : []));
}
