import type { ClusterConfig } from '../config/deployment-config.ts';
import { CONTAINER_INSIGHTS_METRICS, EKS_METRICS } from '../config/metric-catalogue.ts';
import type { Sample, SignalName } from '../engine/signals.ts';

/**
 * The tripwire: one CloudWatch alarm per cluster that arms minute-by-minute polling. This module is its only
 * definition. infra/tripwires.ts renders it into the deployed metric-math alarm, replay and the benchmark evaluate the
 * very same expression on a scenario's signals, so the replayed cadence arms where the deployed one would.
 *
 * Four legs, each the first sample of an outage shape a page rule models:
 * - writes stall: the PATCH p99 (what kubelets and controllers pay on every status update) at or above
 *   `writeP99Seconds`;
 * - the apiserver fails or sheds: 5xx plus 429 at or above `errorRatio` of all requests, with enough requests to judge;
 * - a webhook fails closed: calling errors under `failurePolicy: Fail` count as rejections and answer 500
 *   (`apierrors.NewInternalError` in the apiserver's webhook dispatchers), so at least `MIN_REJECTIONS` rejections with
 *   at least half as many 5xx. A policy that denies on purpose answers 4xx and leaves this leg quiet;
 * - nodes are cut off: at least `MIN_NOTREADY` nodes NotReady (Container Insights' failed node count), so that
 *   nodes-notready-at-scale pages within minutes, not on the slow cadence. The leg reads the NotReady count alone, not
 *   its share of the nodes: every minute the rule's share (half the nodes, three at least) holds, this count holds
 *   too, so arming on it arms at least as early (and a climb that pages on its first minute at half had three
 *   NotReady the minute before, so that minute is read), for one alarm metric where the share needs two ($0.10 a
 *   cluster-month less: CloudWatch bills an alarm per metric it reads). What it costs instead: a cluster keeps minute
 *   reads while three or more of its nodes are NotReady, whatever their share (docs/benchmarks.md measures it). Only a
 *   cluster with Container Insights has this leg.
 * Missing data is breaching: a cluster that goes dark is read every minute once its last datapoints have left the
 * alarm's evaluation range (`alarmInAlarm`), so signals-missing can page.
 *
 * The alarm is in ALARM while any of its last `1 + TRIPWIRE_HOLD_MINUTES` datapoints breaches (1 out of 2, an "M out
 * of N" alarm: "Evaluating an alarm", CloudWatch User Guide,
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarm-evaluation.html), so it holds a cluster on
 * minute reads for a minute after its last breaching one. That is for gaps: metric math reads a leg metric that misses
 * a minute as 0 while the others report, so a climb whose write p99 or NotReady count misses the minute after it first
 * breached reads as calm then; the engine reads a gap of up to BRIDGED_GAP_SAMPLES samples between two passing ones as
 * passing and decides on the minute after the gap, which a 1 out of 1 alarm left to the slow cadence
 * (test/scenario/tripwire-gap-hold.test.ts). The hold is one minute, not the engine's two: every breaching run, calm
 * clusters' noise included, costs the hold's minute reads, and two minutes put 100 clusters over the cost goal
 * (docs/benchmarks.md); a two-minute gap right after the first breach pages a minute later than reading every minute
 * would (docs/rules.md, Known limits). Two other ways were weighed. `FILL(m, REPEAT)` on the leg metrics would carry
 * the breaching value across the gap alone, but the guide advises against FILL in an alarm (Using metric math, FILL:
 * with metrics published late, the newest minute always holds the FILL value and the alarm can stick in OK or ALARM;
 * the workaround it names is an M out of N alarm), and a dark cluster would read as its last values. Dropping the
 * datapoint while a leg metric is missing (an `IF` without its false branch), so that the alarm reads past it to the
 * breach before, would hold only through a gap, but a leg metric that stops for good (a small cluster with minutes
 * without a PATCH, Container Insights turned off) would then read as missing data, breaching, and keep its cluster on
 * minute reads for as long.
 */

/** Settings a deployment chooses (`poll.tripwire` in the configuration). */
export interface TripwireSettings {
  readonly writeP99Seconds: number;
  readonly errorRatio: number;
}

/** Below this many requests a minute, an error share is noise (the rules' own floor for the 5xx share). */
export const MIN_REQUESTS = 50;
/** Fewer rejections a minute than this do not arm: a trickle of denials or a single failed call. */
export const MIN_REJECTIONS = 10;
/** Rejections that come with 5xx: at least this share of them means calls fail closed, not policy denials. */
export const CLOSED_SHARE = 0.5;
/** NotReady nodes that arm: the node lifecycle controller counts a zone unhealthy only from three. */
export const MIN_NOTREADY = 3;

/**
 * The metrics the alarm reads, each named by the canonical signal it stands for, with the names of the metric
 * catalogue (shared/config/metric-catalogue.ts): EKS vended metrics (Average for a `_P99` metric, Sum for a count) and
 * Container Insights' NotReady node count (Maximum, as the poller reads it).
 */
export const TRIPWIRE_METRICS = {
  write: {
    signal: 'apiserver.write.p99',
    from: 'eks',
    metricName: EKS_METRICS.requestDurationP99('PATCH'),
    statistic: 'Average',
  },
  requests: { signal: 'apiserver.requests', from: 'eks', metricName: EKS_METRICS.requests, statistic: 'Sum' },
  errors: { signal: 'apiserver.5xx', from: 'eks', metricName: EKS_METRICS.requests5xx, statistic: 'Sum' },
  shed: { signal: 'apiserver.429', from: 'eks', metricName: EKS_METRICS.requests429, statistic: 'Sum' },
  rejections: {
    signal: 'webhook.rejections',
    from: 'eks',
    metricName: EKS_METRICS.webhookRejections,
    statistic: 'Sum',
  },
  notReady: {
    signal: 'nodes.notready',
    from: 'containerInsights',
    metricName: CONTAINER_INSIGHTS_METRICS.failedNodes,
    statistic: 'Maximum',
  },
} as const satisfies Record<
  string,
  {
    signal: SignalName;
    from: 'eks' | 'containerInsights';
    metricName: string;
    statistic: 'Average' | 'Sum' | 'Maximum';
  }
>;

export type TripwireMetricId = keyof typeof TRIPWIRE_METRICS;

/** A metric-math expression as data, so that it can be both rendered for CloudWatch and evaluated here. */
export type TripwireExpression =
  | { readonly metric: TripwireMetricId }
  | { readonly constant: number }
  | { readonly op: '+' | '*' | '>='; readonly of: readonly [TripwireExpression, TripwireExpression] }
  | { readonly op: 'AND' | 'OR'; readonly of: readonly TripwireExpression[] };

export interface TripwireLeg {
  readonly name: 'write latency' | 'error share' | 'webhook calling errors' | 'nodes NotReady';
  readonly expression: TripwireExpression;
}

/** Minutes the alarm holds a cluster on minute reads after its last breaching minute: a one-minute gap. */
export const TRIPWIRE_HOLD_MINUTES = 1;
/** Datapoints the alarm evaluates: the breaching one and the hold after it. */
export const TRIPWIRE_EVALUATION_PERIODS = 1 + TRIPWIRE_HOLD_MINUTES;

/**
 * What the alarm is, whatever renders it: one datapoint a minute, breaching at 1 (the expression is 0 or 1), in ALARM
 * while 1 of the last `evaluationPeriods` breaches.
 */
export interface TripwireDefinition {
  readonly legs: readonly TripwireLeg[];
  /** The legs joined with OR: 1 when any leg holds. */
  readonly expression: TripwireExpression;
  readonly metrics: readonly TripwireMetricId[];
  readonly periodSeconds: 60;
  readonly threshold: 1;
  readonly evaluationPeriods: typeof TRIPWIRE_EVALUATION_PERIODS;
  readonly datapointsToAlarm: 1;
  readonly treatMissingData: 'breaching';
}

const metric = (id: TripwireMetricId): TripwireExpression => ({ metric: id });
const constant = (value: number): TripwireExpression => ({ constant: value });
const atLeast = (a: TripwireExpression, b: TripwireExpression): TripwireExpression => ({ op: '>=', of: [a, b] });
const times = (value: number, id: TripwireMetricId): TripwireExpression => ({
  op: '*',
  of: [constant(value), metric(id)],
});

/** `part` at least `share` of `whole`, judged only once `floorOf` reaches `floor`: a share of too little is noise. */
const shareWithFloor = (
  floorOf: TripwireMetricId,
  floor: number,
  part: TripwireExpression,
  share: number,
  whole: TripwireMetricId,
): TripwireExpression => ({
  op: 'AND',
  of: [atLeast(metric(floorOf), constant(floor)), atLeast(part, times(share, whole))],
});

/**
 * The alarm for a cluster that provides the signals `provides` says it does (its source profile when deployed, the
 * scenario's series in replay), or none when it provides none of what a leg needs. An addend the cluster lacks is
 * left out of a sum, as the rules leave it out.
 */
export function tripwireDefinition(
  settings: TripwireSettings,
  provides: (signal: SignalName) => boolean,
): TripwireDefinition | undefined {
  const has = (id: TripwireMetricId) => provides(TRIPWIRE_METRICS[id].signal);
  const legs: TripwireLeg[] = [];
  if (has('write')) {
    legs.push({ name: 'write latency', expression: atLeast(metric('write'), constant(settings.writeP99Seconds)) });
  }
  const failing = (['errors', 'shed'] as const).filter(has).map(metric);
  const [first, second] = failing;
  if (has('requests') && first) {
    const failed = second ? { op: '+' as const, of: [first, second] as const } : first;
    legs.push({
      name: 'error share',
      expression: shareWithFloor('requests', MIN_REQUESTS, failed, settings.errorRatio, 'requests'),
    });
  }
  if (has('rejections') && has('errors')) {
    legs.push({
      name: 'webhook calling errors',
      expression: shareWithFloor('rejections', MIN_REJECTIONS, metric('errors'), CLOSED_SHARE, 'rejections'),
    });
  }
  if (has('notReady')) {
    legs.push({ name: 'nodes NotReady', expression: atLeast(metric('notReady'), constant(MIN_NOTREADY)) });
  }
  if (legs.length === 0) return undefined;
  const [only] = legs;
  const expression: TripwireExpression =
    legs.length === 1 && only ? only.expression : { op: 'OR', of: legs.map((leg) => leg.expression) };
  return {
    legs,
    expression,
    metrics: (Object.keys(TRIPWIRE_METRICS) as TripwireMetricId[]).filter((id) => mentions(expression, id)),
    periodSeconds: 60,
    threshold: 1,
    evaluationPeriods: TRIPWIRE_EVALUATION_PERIODS,
    datapointsToAlarm: 1,
    treatMissingData: 'breaching',
  };
}

function mentions(expression: TripwireExpression, id: TripwireMetricId): boolean {
  if ('metric' in expression) return expression.metric === id;
  if ('constant' in expression) return false;
  return expression.of.some((e) => mentions(e, id));
}

/** CloudWatch metric-math syntax; every operation in parentheses, so that no precedence rule is needed. */
export function renderTripwireExpression(expression: TripwireExpression): string {
  if ('metric' in expression) return expression.metric;
  if ('constant' in expression) return String(expression.constant);
  return `(${expression.of.map(renderTripwireExpression).join(` ${expression.op} `)})`;
}

/**
 * The expression's value at one minute, as CloudWatch computes it ("Using metric math": missing values are treated
 * as 0 by arithmetic, and by a comparison whose other side has a value;
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/using-metric-math.html). The result has a datapoint
 * when at least one metric has one; otherwise it is null, which the alarm treats as breaching.
 */
export function evaluateTripwireExpression(
  expression: TripwireExpression,
  sampleOf: (id: TripwireMetricId) => Sample,
): number | null {
  const ids = (Object.keys(TRIPWIRE_METRICS) as TripwireMetricId[]).filter((id) => mentions(expression, id));
  if (ids.every((id) => sampleOf(id) === null)) return null;
  const value = (e: TripwireExpression): number => {
    if ('metric' in e) return sampleOf(e.metric) ?? 0;
    if ('constant' in e) return e.constant;
    const operands = e.of.map(value);
    switch (e.op) {
      case '+':
        return operands.reduce((a, b) => a + b, 0);
      case '*':
        return operands.reduce((a, b) => a * b, 1);
      case '>=':
        return (operands[0] ?? 0) >= (operands[1] ?? 0) ? 1 : 0;
      case 'AND':
        return operands.every((o) => o !== 0) ? 1 : 0;
      case 'OR':
        return operands.some((o) => o !== 0) ? 1 : 0;
    }
  };
  return value(expression);
}

/** Whether the alarm's datapoint at one minute breaches: at or above the threshold, or missing. */
export function tripwireBreaches(definition: TripwireDefinition, sampleOf: (id: TripwireMetricId) => Sample): boolean {
  return tripwireDatapoint(definition, sampleOf) ?? true;
}

/** The alarm's datapoint at one minute: whether it breaches, or null when the expression has none. */
export function tripwireDatapoint(
  definition: TripwireDefinition,
  sampleOf: (id: TripwireMetricId) => Sample,
): boolean | null {
  const value = evaluateTripwireExpression(definition.expression, sampleOf);
  return value === null ? null : value >= definition.threshold;
}

/**
 * Datapoints CloudWatch retrieves beyond `evaluationPeriods` to evaluate an alarm, its evaluation range. The guide
 * says it depends on the period and the resolution without giving it; its one example retrieves 5 for 3 evaluation
 * periods ("How alarm state is evaluated when data is missing",
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarms-and-missing-data.html#alarms-evaluating-missing-data),
 * and this takes that example's 2.
 */
export const EVALUATION_RANGE_EXTRA_PERIODS = 2;

/**
 * Whether an alarm is in ALARM once it has evaluated its newest datapoint, as CloudWatch evaluates one ("How alarm
 * state is evaluated when data is missing", link above). `datapoint(back)` is the datapoint `back` periods before the
 * newest: whether it breaches, or null when missing. CloudWatch retrieves the evaluation range: with at least
 * `evaluationPeriods` datapoints present in it, it evaluates the newest of those, skipping the missing ones and leaving
 * the setting for missing data unused; with fewer, it evaluates all present ones and fills in the rest with that
 * setting (here breaching), as few as it can. ALARM when at least `datapointsToAlarm` of those breach. So a missing
 * minute never clears a breach still in the range, and a cluster that goes dark arms once its last present datapoints
 * have left the range, not on its first missing minute.
 */
export function alarmInAlarm(
  alarm: {
    readonly evaluationPeriods: number;
    readonly datapointsToAlarm: number;
    readonly treatMissingData: 'breaching' | 'notBreaching';
  },
  datapoint: (back: number) => boolean | null,
): boolean {
  const present: boolean[] = [];
  const range = alarm.evaluationPeriods + EVALUATION_RANGE_EXTRA_PERIODS;
  for (let back = 0; back < range && present.length < alarm.evaluationPeriods; back++) {
    const breaches = datapoint(back);
    if (breaches !== null) present.push(breaches);
  }
  const filled = alarm.evaluationPeriods - present.length;
  const breaching = present.filter(Boolean).length + (alarm.treatMissingData === 'breaching' ? filled : 0);
  return breaching >= alarm.datapointsToAlarm;
}

/**
 * The alarm's state after each of `steps` minutes of a cluster's series, in ALARM or not, as CloudWatch evaluates it
 * (`alarmInAlarm`); replay and the benchmark read it. Before the series starts, the cluster reported and was calm.
 */
export function tripwireStates(
  definition: TripwireDefinition,
  steps: number,
  sampleAt: (signal: SignalName, index: number) => Sample,
): boolean[] {
  const datapoints = Array.from({ length: steps }, (_, index) =>
    tripwireDatapoint(
      definition,
      tripwireValues((signal) => sampleAt(signal, index)),
    ),
  );
  return datapoints.map((_, index) =>
    alarmInAlarm(definition, (back) => (index < back ? false : (datapoints[index - back] ?? null))),
  );
}

/** The series a scenario or a window offers, read as the tripwire's metrics at one index. */
export function tripwireValues(sampleOf: (signal: SignalName) => Sample): (id: TripwireMetricId) => Sample {
  return (id) => sampleOf(TRIPWIRE_METRICS[id].signal);
}

/** One CloudWatch metric the alarm reads, as a deployment names it. */
export interface TripwireMetricSpec {
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly statistic: string;
}

/**
 * Where each signal the tripwire may read comes from for a configured cluster: the custom metric it configured for
 * that signal, or the EKS vended (or, where the cluster has it, Container Insights) metric of the definition; a
 * `custom` profile cluster has only its custom metrics.
 */
export function tripwireMetricSources(cluster: ClusterConfig): ReadonlyMap<SignalName, TripwireMetricSpec> {
  const sources = new Map<SignalName, TripwireMetricSpec>();
  for (const { signal, from, metricName, statistic } of Object.values(TRIPWIRE_METRICS)) {
    const custom = cluster.source.custom[signal];
    if (custom) {
      sources.set(signal, {
        namespace: custom.namespace,
        metricName: custom.metricName,
        dimensions: custom.dimensions,
        statistic: custom.stat,
      });
    } else if (cluster.source.profile === 'eks' && (from === 'eks' || cluster.source.containerInsights)) {
      const catalogue = from === 'eks' ? EKS_METRICS : CONTAINER_INSIGHTS_METRICS;
      sources.set(signal, {
        namespace: catalogue.namespace,
        metricName,
        dimensions: { [catalogue.dimension]: cluster.name },
        statistic,
      });
    }
  }
  return sources;
}

/** The alarm of a configured cluster, or none (tripwires disabled, or nothing a leg needs). */
export function configuredTripwire(
  cluster: ClusterConfig,
  tripwire: TripwireSettings & { readonly enabled: boolean },
): TripwireDefinition | undefined {
  if (!tripwire.enabled) return undefined;
  const sources = tripwireMetricSources(cluster);
  return tripwireDefinition(tripwire, (signal) => sources.has(signal));
}

/** Alarm metrics a deployment's tripwires reference: what CloudWatch bills them by. */
export function tripwireAlarmMetrics(
  clusters: readonly ClusterConfig[],
  tripwire: TripwireSettings & { readonly enabled: boolean },
): number {
  return clusters.reduce((n, cluster) => n + (configuredTripwire(cluster, tripwire)?.metrics.length ?? 0), 0);
}
