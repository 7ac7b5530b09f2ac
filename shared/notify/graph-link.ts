import type { MetricSpec, SignalSource } from '../config/metric-catalogue.ts';
import {
  asQuotient,
  type Condition,
  type DifferenceOperand,
  describeOperand,
  type Operand,
  type Term,
  termSignals,
} from '../engine/condition.ts';
import { DATAPOINTS_OF, type Evidence, type EvidenceCondition } from '../engine/evaluate-condition.ts';
import type { NotificationKind } from '../engine/notification.ts';
import type { RuleSet } from '../engine/rule-set.ts';
import { SIGNALS, type SignalName } from '../engine/signals.ts';
import { type JsurlValue, metricsGraphUrl } from './console-url.ts';
import { formatNumber } from './notification-text.ts';

/** Where one cluster's metrics are, for its graphs. */
export interface GraphCluster {
  /** The workload account, when the cluster is not in the ops account: read through cross-account observability. */
  readonly accountId?: string;
  readonly region?: string;
  /** Its signals' metrics, from the metric catalogue (shared/config/metric-catalogue.ts). */
  readonly sources: readonly SignalSource[];
}

export interface GraphSettings {
  /** The Region whose console opens the graph: the ops stack's. Unknown, the console opens in the last one used. */
  readonly region?: string;
  /** Every watched cluster; a cluster not here is not graphed. */
  readonly clusters: ReadonlyMap<string, GraphCluster>;
}

/** One piece of evidence of a notification, on the cluster it was seen on. */
export interface GraphEvidence {
  readonly cluster: string;
  readonly rule: string;
  readonly item: Evidence;
}

export interface GraphRequest {
  readonly title: string;
  readonly kind: NotificationKind;
  readonly at: string;
  readonly openedAt: string;
  /** The evidence to graph, passed or not: a resolve graphs what it last saw. */
  readonly evidence: readonly GraphEvidence[];
  readonly ruleSet: RuleSet;
}

/**
 * A graph names at most 100 metrics and expressions (Metric Widget Structure, `metrics`), and more than five
 * clusters' lines do not read: a fleet page graphs its first clusters, as many as fit both.
 */
const MAX_ENTRIES = 100;
const MAX_CLUSTERS = 5;
/** At most this many datapoints a line: a window longer than a day at one minute takes a longer period. */
const MAX_POINTS = 1440;
const BEFORE_OPENING_MS = 2 * 3_600_000;
const AFTER_MS: Record<NotificationKind, number> = {
  page: 3_600_000,
  ticket: 3_600_000,
  update: 3_600_000,
  resolve: 15 * 60_000,
};

type Entry = JsurlValue[];
type Axis = 'left' | 'right';

/**
 * The CloudWatch console link that graphs a notification's evidence: on each cluster (the first that fit), each
 * compared operand (a signal, a sum, a ratio or a difference, as metric math over the catalogue's metrics), with each
 * per-sample threshold as a horizontal line, from two hours before the incident opened to an hour after this
 * notification (a quarter of an hour after a resolve), with the opening and this notification as vertical lines.
 * Undefined when there is nothing to graph.
 */
export function graphLink(request: GraphRequest, settings: GraphSettings): string | undefined {
  const metrics: Entry[] = [];
  const horizontal = new Map<string, { label: string; value: number; yAxis: Axis }>();
  const lines = new Set<string>();
  const clusters = [...new Set(request.evidence.map((e) => e.cluster))];
  const units: string[] = [];
  const graphed = new Set<string>();
  let full = false;
  /** Adds the line of `operand` on `cluster` unless it is there already; whether the graph has it. */
  const line = (cluster: string, where: GraphCluster, operand: Operand): boolean => {
    // Metric math graphs a share as its plain quotient; the threshold's own label says where a rule reads its bound.
    const plotted = describeOperand(asQuotient(operand));
    const key = `${cluster} ${plotted}`;
    if (lines.has(key)) return true;
    if (full || (!graphed.has(cluster) && graphed.size === MAX_CLUSTERS)) return false;
    const unit = unitOf(operand);
    const label = clusters.length > 1 ? `${cluster}: ${plotted}` : plotted;
    const entries = lineOf(operand, where, settings.region, { label, yAxis: axisOf(units, unit) }, metrics.length);
    if (!entries) return false;
    if (metrics.length + entries.length > MAX_ENTRIES) {
      full = true;
      return false;
    }
    if (!units.includes(unit)) units.push(unit);
    metrics.push(...entries);
    lines.add(key);
    graphed.add(cluster);
    return true;
  };
  for (const { cluster, rule, item } of request.evidence) {
    const where = settings.clusters.get(cluster);
    const condition = item.condition ?? comparedBy(request.ruleSet.get(rule)?.when, item);
    if (!where || !condition) continue;
    if (condition.kind === 'absent') {
      // Signals gone dark: each on a line of its own, where the gap shows.
      for (const signal of condition.of) line(cluster, where, signal);
      continue;
    }
    const perSample = condition.kind === 'threshold' || condition.kind === 'sustained';
    if (line(cluster, where, condition.of) && perSample) {
      const label = `${item.what} ${item.op} ${formatNumber(item.threshold)}`;
      horizontal.set(label, { label, value: item.threshold, yAxis: axisOf(units, unitOf(condition.of)) });
    }
  }
  if (metrics.length === 0) return undefined;
  const start = Date.parse(request.openedAt) - BEFORE_OPENING_MS;
  const end = Date.parse(request.at) + AFTER_MS[request.kind];
  const minutes = Math.ceil((end - start) / 60_000);
  const vertical: JsurlValue[] = [{ label: 'incident opened', value: request.openedAt }];
  if (request.at !== request.openedAt) vertical.push({ label: request.kind, value: request.at });
  const title =
    clusters.length > graphed.size
      ? `${request.title} (first ${graphed.size} of ${clusters.length} clusters shown)`
      : request.title;
  return metricsGraphUrl(settings.region, {
    view: 'timeSeries',
    stacked: false,
    title,
    ...(settings.region && { region: settings.region }),
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    period: 60 * Math.ceil(minutes / MAX_POINTS),
    metrics,
    annotations: { horizontal: [...horizontal.values()], vertical },
  });
}

/** The first unit graphed goes on the left axis, any other on the right. */
function axisOf(units: readonly string[], unit: string): Axis {
  return units.length === 0 || units[0] === unit ? 'left' : 'right';
}

/**
 * The condition of a rule that produced a piece of evidence stored before evidence named its condition: the one whose
 * operand reads as the evidence says (the engine wrote `what` from the operand), preferring a per-sample comparison
 * with the same operator.
 */
function comparedBy(when: Condition | undefined, item: Evidence): EvidenceCondition | undefined {
  if (!when) return undefined;
  const candidates = flatten(when).filter((c) =>
    c.kind === 'absent' ? item.what.startsWith(DATAPOINTS_OF) : describeOperand(c.of) === item.what,
  );
  return (
    candidates.find((c) => (c.kind === 'threshold' || c.kind === 'sustained') && c.op === item.op) ?? candidates[0]
  );
}

/** A condition that compares something: every kind but the combinators. */
type Comparison = Exclude<Condition, { readonly conditions: readonly Condition[] }>;

function flatten(condition: Condition): Comparison[] {
  return condition.kind === 'allOf' || condition.kind === 'anyOf' || condition.kind === 'noneOf'
    ? condition.conditions.flatMap(flatten)
    : [condition];
}

function unitOf(operand: Operand): string {
  if (typeof operand === 'object' && 'ratio' in operand) return 'ratio';
  const [first] =
    typeof operand === 'object' && 'difference' in operand ? termSignals(operand.difference[0]) : termSignals(operand);
  return first ? SIGNALS[first].unit : 'count';
}

/**
 * The graph entries of one operand on one cluster: its one metric, shown as it is, or, when it needs arithmetic
 * (several metrics, a sum, a ratio, a difference), hidden metrics under one visible metric-math expression. Metric
 * and expression ids continue from `taken`, the entries already in the graph. Undefined when the cluster has none of
 * its signals.
 */
function lineOf(
  operand: Operand,
  where: GraphCluster,
  consoleRegion: string | undefined,
  shown: { readonly label: string; readonly yAxis: Axis },
  taken: number,
): Entry[] | undefined {
  const used: { readonly id: string; readonly metric: MetricSpec }[] = [];
  const signal = (name: SignalName): string | undefined => {
    const source = where.sources.find((s) => s.signal === name);
    if (!source || source.metrics.length === 0) return undefined;
    const ids = source.metrics.map((metric) => {
      const id = `m${taken + used.length + 1}`;
      used.push({ id, metric });
      return id;
    });
    return ids.length === 1 ? ids[0] : `${source.combine.toUpperCase()}([${ids.join(', ')}])`;
  };
  const term = (t: Term): string | undefined => {
    const parts = termSignals(t).flatMap((name) => signal(name) ?? []);
    return parts.length <= 1 ? parts[0] : `(${parts.join(' + ')})`;
  };
  const difference = (d: DifferenceOperand): string | undefined => {
    const [from, subtracted] = [term(d.difference[0]), term(d.difference[1])];
    return from && (subtracted ? `${from} - ${subtracted}` : from);
  };
  const termOrDifference = (t: Term | DifferenceOperand) =>
    typeof t === 'object' && 'difference' in t ? difference(t) : term(t);
  let expression: string | undefined;
  if (typeof operand === 'object' && 'ratio' in operand) {
    const [top, bottom] = [termOrDifference(operand.ratio[0]), term(operand.ratio[1])];
    expression = top && bottom ? `${top.includes(' - ') ? `(${top})` : top} / ${bottom}` : undefined;
  } else {
    expression = termOrDifference(operand);
  }
  if (!expression) return undefined;
  const place = {
    ...(where.accountId && { accountId: where.accountId }),
    ...(where.region && where.region !== consoleRegion && { region: where.region }),
  };
  const entry = ({ id, metric }: (typeof used)[number], options: Record<string, JsurlValue>): Entry => [
    metric.namespace,
    metric.metricName,
    ...Object.entries(metric.dimensions).flat(),
    { id, stat: metric.stat, ...place, ...options },
  ];
  const [only] = used;
  if (used.length === 1 && only) return [entry(only, shown)];
  return [
    ...sameAsAbove(used.map((metric) => entry(metric, { visible: false }))),
    [{ expression, ...shown, id: `e${taken + used.length + 1}` }],
  ];
}

/**
 * Metric rows with `.` for each name that repeats the row above at the same place, as the console writes its own
 * links (the Route 53 example in console-url.ts): a fleet page repeats a long cluster name in every row, and the
 * link goes out in every body of a message that has a size limit.
 */
function sameAsAbove(rows: readonly Entry[]): Entry[] {
  return rows.map((row, index) => {
    const above = rows[index - 1];
    return above
      ? row.map((cell, place) => (typeof cell === 'string' && cell === above[place] ? '.' : cell))
      : [...row];
  });
}
