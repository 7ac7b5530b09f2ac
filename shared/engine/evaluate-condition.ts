import {
  type Aggregate,
  type Comparator,
  type Condition,
  describeOperand,
  type Operand,
  operandSignals,
  type Term,
  type Threshold,
} from './condition.ts';
import { durationSamples } from './duration.ts';
import type { SignalWindow } from './signal-window.ts';
import { SIGNALS, type SignalName } from './signals.ts';

/**
 * Tri-state logic with a fourth value for rules that cannot run. `unknown` means the data present cannot decide:
 * the lifecycle never treats it as clear, which is how a gap in CloudWatch never resolves an incident.
 */
export type Verdict = 'met' | 'unmet' | 'unknown' | 'skipped';

/** One value that a rule compared with its threshold. */
export interface Evidence {
  readonly what: string;
  readonly over: string;
  readonly observed: number;
  readonly op: Comparator;
  readonly threshold: number;
  readonly unit: string;
  readonly passed: boolean;
}

export interface ConditionResult {
  readonly verdict: Verdict;
  /** For a met condition, what tripped it; otherwise the comparisons that fell short (for near-miss reporting). */
  readonly evidence: readonly Evidence[];
  /** Signals the cluster does not provide, when the verdict is `skipped`. */
  readonly lacking: readonly SignalName[];
}

export type Params = Readonly<Record<string, number>>;

/** Below this share of present samples, an average or an episode count is not trusted. */
const MIN_COVERAGE = 0.5;

export function compare(value: number, op: Comparator, threshold: number): boolean {
  switch (op) {
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
  }
}

function resolveThreshold(value: Threshold, params: Params): number {
  if (typeof value === 'number') return value;
  const resolved = params[value.slice(1)];
  // Rule sets are validated before they run, so an unknown parameter here is a bug, not bad input.
  if (resolved === undefined) throw new Error(`rule parameter ${value} has no value`);
  return resolved;
}

function termAt(window: SignalWindow, term: Term, back: number): number | null {
  if (typeof term === 'string') return window.sample(term, back);
  let total = 0;
  for (const signal of term.sum) {
    const value = window.sample(signal, back);
    if (value === null) return null;
    total += value;
  }
  return total;
}

export function operandAt(window: SignalWindow, operand: Operand, back: number): number | null {
  if (typeof operand === 'string' || 'sum' in operand) return termAt(window, operand, back);
  const numerator = termAt(window, operand.ratio[0], back);
  const denominator = termAt(window, operand.ratio[1], back);
  if (numerator === null || denominator === null) return null;
  // Too little traffic to judge a share: report no failure rather than a noisy ratio.
  if (denominator <= 0 || denominator < (operand.minDenominator ?? 0)) return 0;
  return numerator / denominator;
}

function unitOf(operand: Operand): string {
  if (typeof operand === 'object' && 'ratio' in operand) return 'ratio';
  const [first] = operandSignals(operand);
  return first ? SIGNALS[first].unit : '';
}

interface Collected {
  readonly values: readonly number[];
  readonly missing: number;
}

function collect(window: SignalWindow, operand: Operand, from: number, count: number): Collected {
  const values: number[] = [];
  let missing = 0;
  // Oldest first, so that episodes are counted in time order.
  for (let back = from + count - 1; back >= from; back--) {
    const value = operandAt(window, operand, back);
    if (value === null) missing++;
    else values.push(value);
  }
  return { values, missing };
}

function aggregate(values: readonly number[], how: Aggregate, where?: (value: number) => boolean): number {
  switch (how) {
    case 'sum':
      return values.reduce((a, b) => a + b, 0);
    case 'avg':
      return values.reduce((a, b) => a + b, 0) / values.length;
    case 'max':
      return Math.max(...values);
    case 'min':
      return Math.min(...values);
    case 'count':
      return where ? values.filter(where).length : values.length;
    case 'episodes': {
      let episodes = 0;
      let inEpisode = false;
      for (const value of values) {
        const passes = where?.(value) ?? false;
        if (passes && !inEpisode) episodes++;
        inEpisode = passes;
      }
      return episodes;
    }
  }
}

/**
 * With gaps in the window, decide only when the gaps cannot change the answer. Sums, counts and maxima of
 * non-negative signals can only grow as samples arrive, minima only shrink; averages and episode counts are trusted
 * above a minimum coverage.
 */
function verdictWithGaps(how: Aggregate, op: Comparator, passed: boolean, collected: Collected): Verdict {
  const { values, missing } = collected;
  if (values.length === 0) return 'unknown';
  if (missing === 0) return passed ? 'met' : 'unmet';
  if (how === 'avg' || how === 'episodes') {
    if (values.length / (values.length + missing) < MIN_COVERAGE) return 'unknown';
    return passed ? 'met' : 'unmet';
  }
  const grows = how !== 'min';
  const upward = op === '>' || op === '>=';
  if (grows === upward) return passed ? 'met' : 'unknown';
  return passed ? 'unknown' : 'unmet';
}

function lackingSignals(window: SignalWindow, signals: readonly SignalName[]): SignalName[] {
  return signals.filter((signal) => !window.has(signal));
}

const samplesOf = (n: number) => `${n} sample${n === 1 ? '' : 's'}`;

export function evaluateCondition(condition: Condition, window: SignalWindow, params: Params): ConditionResult {
  const none: readonly SignalName[] = [];
  if (condition.kind === 'allOf' || condition.kind === 'anyOf' || condition.kind === 'noneOf') {
    return combine(condition.kind, condition.conditions, window, params);
  }
  const lacking = lackingSignals(window, condition.kind === 'absent' ? condition.of : operandSignals(condition.of));
  if (lacking.length > 0) return { verdict: 'skipped', evidence: [], lacking };

  if (condition.kind === 'absent') {
    const samples = durationSamples(condition.window, window.stepSeconds);
    let seen = 0;
    for (const signal of condition.of) {
      for (let back = 0; back < samples; back++) if (window.sample(signal, back) !== null) seen++;
    }
    const passed = seen === 0;
    const evidence: Evidence = {
      what: `datapoints of ${condition.of.join(', ')}`,
      over: `last ${condition.window}`,
      observed: seen,
      op: '<=',
      threshold: 0,
      unit: 'count',
      passed,
    };
    return { verdict: passed ? 'met' : 'unmet', evidence: [evidence], lacking: none };
  }

  const threshold = resolveThreshold(condition.value, params);
  const evidenceOf = (observed: number, over: string, passed: boolean): Evidence => ({
    what: describeOperand(condition.of),
    over,
    observed,
    op: condition.op,
    threshold,
    unit: unitOf(condition.of),
    passed,
  });

  switch (condition.kind) {
    case 'threshold': {
      const value = operandAt(window, condition.of, 0);
      if (value === null) return { verdict: 'unknown', evidence: [], lacking: none };
      const passed = compare(value, condition.op, threshold);
      return {
        verdict: passed ? 'met' : 'unmet',
        evidence: [evidenceOf(value, 'latest sample', passed)],
        lacking: none,
      };
    }
    case 'sustained': {
      const present: number[] = [];
      for (let back = 0; back < condition.n; back++) {
        const value = operandAt(window, condition.of, back);
        if (value !== null) present.push(value);
      }
      const passing = present.filter((value) => compare(value, condition.op, threshold)).length;
      const missing = condition.n - present.length;
      const verdict: Verdict = passing >= condition.m ? 'met' : passing + missing < condition.m ? 'unmet' : 'unknown';
      // Most extreme first: a met condition shows its peak; an unmet one shows the level its m best samples reached,
      // which is how close it came (a near miss), rather than whatever the newest sample happened to be.
      const upward = condition.op === '>' || condition.op === '>=';
      const ranked = present.sort((a, b) => (upward ? b - a : a - b));
      const observed = (verdict === 'met' ? ranked[0] : (ranked[condition.m - 1] ?? ranked.at(-1))) ?? 0;
      const over = `${passing} of last ${samplesOf(condition.n)}, needs ${condition.m}`;
      return { verdict, evidence: [evidenceOf(observed, over, verdict === 'met')], lacking: none };
    }
    case 'window': {
      const samples = durationSamples(condition.window, window.stepSeconds);
      const collected = collect(window, condition.of, 0, samples);
      if (collected.values.length === 0) return { verdict: 'unknown', evidence: [], lacking: none };
      const where = condition.where;
      const filter = where
        ? (value: number) => compare(value, where.op, resolveThreshold(where.value, params))
        : undefined;
      const value = aggregate(collected.values, condition.aggregate, filter);
      const passed = compare(value, condition.op, threshold);
      const verdict = verdictWithGaps(condition.aggregate, condition.op, passed, collected);
      const qualifier = where
        ? ` with ${describeOperand(condition.of)} ${where.op} ${resolveThreshold(where.value, params)}`
        : '';
      const evidence = { ...evidenceOf(value, `${condition.aggregate} over ${condition.window}${qualifier}`, passed) };
      return {
        verdict,
        evidence: [
          condition.aggregate === 'count' || condition.aggregate === 'episodes'
            ? { ...evidence, unit: 'count' }
            : evidence,
        ],
        lacking: none,
      };
    }
    case 'change': {
      const recentSamples = durationSamples(condition.window, window.stepSeconds);
      const baselineSamples = durationSamples(condition.baseline, window.stepSeconds);
      const recent = collect(window, condition.of, 0, recentSamples);
      const baseline = collect(window, condition.of, recentSamples, baselineSamples);
      const covered = (c: Collected) =>
        c.values.length > 0 && c.values.length / (c.values.length + c.missing) >= MIN_COVERAGE;
      if (!covered(recent) || !covered(baseline)) return { verdict: 'unknown', evidence: [], lacking: none };
      const now = aggregate(recent.values, condition.aggregate);
      const before = aggregate(baseline.values, condition.aggregate);
      const change =
        condition.mode === 'delta'
          ? now - before
          : before === 0
            ? now === 0
              ? 1
              : Number.POSITIVE_INFINITY
            : now / before;
      const passed = compare(change, condition.op, threshold);
      const over = `${condition.aggregate} over ${condition.window} vs the ${condition.baseline} before (${condition.mode})`;
      const evidence = {
        ...evidenceOf(change, over, passed),
        unit: condition.mode === 'ratio' ? 'x' : unitOf(condition.of),
      };
      return { verdict: passed ? 'met' : 'unmet', evidence: [evidence], lacking: none };
    }
  }
}

function combine(
  kind: 'allOf' | 'anyOf' | 'noneOf',
  conditions: readonly Condition[],
  window: SignalWindow,
  params: Params,
): ConditionResult {
  const results = conditions.map((condition) => evaluateCondition(condition, window, params));
  const having = (verdict: Verdict) => results.filter((r) => r.verdict === verdict);
  const evidenceOf = (rs: readonly ConditionResult[]) => rs.flatMap((r) => r.evidence);
  const lacking = [...new Set(having('skipped').flatMap((r) => r.lacking))];

  if (kind === 'noneOf') {
    const seen = having('met');
    // The evidence of a met noneOf is an absence, which has nothing to show; an unmet one shows what was seen.
    return seen.length > 0
      ? { verdict: 'unmet', evidence: evidenceOf(seen), lacking: [] }
      : { verdict: 'met', evidence: [], lacking: [] };
  }
  if (kind === 'allOf') {
    if (lacking.length > 0) return { verdict: 'skipped', evidence: [], lacking };
    const unmet = having('unmet');
    if (unmet.length > 0) return { verdict: 'unmet', evidence: evidenceOf(unmet), lacking: [] };
    if (having('unknown').length > 0) return { verdict: 'unknown', evidence: evidenceOf(having('met')), lacking: [] };
    return { verdict: 'met', evidence: evidenceOf(results), lacking: [] };
  }
  const evaluated = results.filter((r) => r.verdict !== 'skipped');
  if (evaluated.length === 0) return { verdict: 'skipped', evidence: [], lacking };
  const met = having('met');
  if (met.length > 0) return { verdict: 'met', evidence: evidenceOf(met), lacking: [] };
  if (having('unknown').length > 0) return { verdict: 'unknown', evidence: evidenceOf(having('unmet')), lacking: [] };
  return { verdict: 'unmet', evidence: evidenceOf(evaluated), lacking: [] };
}

/** How many samples of history a condition reads, so that a poll fetches enough and no more. */
export function conditionLookback(condition: Condition, stepSeconds: number): number {
  switch (condition.kind) {
    case 'threshold':
      return 1;
    case 'sustained':
      return condition.n;
    case 'window':
    case 'absent':
      return durationSamples(condition.window, stepSeconds);
    case 'change':
      return durationSamples(condition.window, stepSeconds) + durationSamples(condition.baseline, stepSeconds);
    default:
      return Math.max(1, ...condition.conditions.map((c) => conditionLookback(c, stepSeconds)));
  }
}
