import {
  type Aggregate,
  asQuotient,
  type ChangeCondition,
  type Comparator,
  type Condition,
  describeOperand,
  type Operand,
  type OperandCoverage,
  operandCoverage,
  operandSignals,
  type RatioOperand,
  type ShareConfidence,
  type Term,
  type Threshold,
  type WindowCondition,
} from './condition.ts';
import { durationSamples } from './duration.ts';
import type { SignalWindow } from './signal-window.ts';
import { type Sample, SIGNALS, type SignalName } from './signals.ts';

/**
 * Tri-state logic with a fourth value for rules that cannot run. `unknown` means the data present cannot decide:
 * the lifecycle never treats it as clear, which is how a gap in CloudWatch never resolves an incident.
 */
export type Verdict = 'met' | 'unmet' | 'unknown' | 'skipped';

/**
 * The condition a piece of evidence comes from, as much of it as a reader of the evidence needs: its kind (a
 * per-sample comparison, an aggregate over a window, a change between windows, an absence) and what it read.
 */
export type EvidenceCondition =
  | { readonly kind: 'threshold' | 'sustained' | 'window' | 'change'; readonly of: Operand }
  | { readonly kind: 'absent'; readonly of: readonly SignalName[] };

/** One value that a rule compared with its threshold. */
export interface Evidence {
  readonly what: string;
  readonly over: string;
  readonly observed: number;
  readonly op: Comparator;
  readonly threshold: number;
  readonly unit: string;
  readonly passed: boolean;
  /**
   * The condition that compared it. Evidence stored by releases before it has none; a reader then finds the
   * condition in the rule by the text of `what`.
   */
  readonly condition?: EvidenceCondition;
}

/** How the evidence of an `absent` condition begins: `datapoints of` the signals the cluster provides. */
export const DATAPOINTS_OF = 'datapoints of ';

export interface ConditionResult {
  readonly verdict: Verdict;
  /** For a met condition, what tripped it; otherwise the comparisons that fell short (for near-miss reporting). */
  readonly evidence: readonly Evidence[];
  /**
   * Signals the condition reads that the cluster does not provide. With a `skipped` verdict they are why it could
   * not run; with any other verdict it ran without them (partial coverage): a branch of an anyOf, an addend of a sum.
   */
  readonly lacking: readonly SignalName[];
}

export type Params = Readonly<Record<string, number>>;

/** What a condition compared: evidence before the comparison is made. */
type Comparison = Omit<Evidence, 'passed' | 'condition'> & { readonly condition: EvidenceCondition };

/** The evidence of a comparison, its fields in the order stored evidence has always had them. */
function evidenceOf(comparison: Comparison, passed: boolean): Evidence {
  const { what, over, observed, op, threshold, unit, condition } = comparison;
  return { what, over, observed, op, threshold, unit, passed, condition };
}

/** A condition decided by one comparison: met when its observed value passes the threshold, with it as evidence. */
function decidedBy(comparison: Comparison, lacking: readonly SignalName[]): ConditionResult {
  const passed = compare(comparison.observed, comparison.op, comparison.threshold);
  return { verdict: passed ? 'met' : 'unmet', evidence: [evidenceOf(comparison, passed)], lacking };
}

/** Below this share of present samples, an average or an episode count is not trusted. */
const MIN_COVERAGE = 0.5;

/**
 * A baseline is trusted once it holds present samples covering twice the recent window, or half of the baseline if
 * that is less: two hours of quiet before a burst of node replacements are evidence enough, whatever the 6-hour
 * baseline asks for, and a cluster watched for an hour is not judged against one minute of history.
 */
export function minimumBaselineSamples(recentSamples: number, baselineSamples: number): number {
  return Math.min(2 * recentSamples, Math.ceil(baselineSamples * MIN_COVERAGE));
}

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

/** A sum adds the signals the cluster provides; one of them missing at this step makes the whole sum missing. */
function termAt(window: SignalWindow, term: Term, back: number): number | null {
  if (typeof term === 'string') return window.sample(term, back);
  let total = 0;
  for (const signal of term.sum) {
    if (!window.has(signal)) continue;
    const value = window.sample(signal, back);
    if (value === null) return null;
    total += value;
  }
  return total;
}

/**
 * The normal quantile of each share confidence, two-sided (Wilson, "Probable inference, the law of succession, and
 * statistical inference", JASA 1927; the interval Agresti and Coull recommend for small counts, The American
 * Statistician 1998).
 */
const Z_OF: Readonly<Record<ShareConfidence, number>> = { 0.9: 1.645, 0.95: 1.96, 0.99: 2.576, 0.999: 3.291 };

/** A share's events and the trials they are counted among: 5xx answers among requests. */
export interface ShareCounts {
  readonly events: number;
  readonly trials: number;
}

/**
 * The Wilson score interval of `events` among `trials`: the shares the counts support at this confidence. It stays
 * near the quotient for thousands of trials and widens well around it for a handful. An events count above the
 * trials (a ratio that is not a share of events) is read as all of them; no trials support any share.
 */
export function shareInterval(
  { events, trials }: ShareCounts,
  confidence: ShareConfidence,
): { readonly lower: number; readonly upper: number } {
  if (!(trials > 0)) return { lower: 0, upper: 1 };
  const z = Z_OF[confidence];
  const p = Math.min(events, trials) / trials;
  const z2n = (z * z) / trials;
  const centre = p + z2n / 2;
  const spread = z * Math.sqrt((p * (1 - p)) / trials + z2n / (4 * trials));
  return { lower: Math.max(0, (centre - spread) / (1 + z2n)), upper: Math.min(1, (centre + spread) / (1 + z2n)) };
}

/**
 * The lower end of the Wilson score interval of `events` among `trials`: the smallest share the counts support, so
 * that a share of a few events needs more of them to pass a threshold.
 */
export function shareLowerBound(events: number, trials: number, confidence: ShareConfidence): number {
  return shareInterval({ events, trials }, confidence).lower;
}

/**
 * How a share is read: `bound`, the lower end of its interval where the operand asks for one (a comparison with a
 * threshold); `point`, the plain quotient (averages compared between windows, whose counts pool many samples).
 */
export type ShareReading = 'bound' | 'point';

export function operandAt(
  window: SignalWindow,
  operand: Operand,
  back: number,
  reading: ShareReading = 'bound',
): number | null {
  if (typeof operand === 'string' || 'sum' in operand) return termAt(window, operand, back);
  if ('difference' in operand) {
    const from = termAt(window, operand.difference[0], back);
    if (from === null) return null;
    const [, taken] = operand.difference;
    const provided = typeof taken === 'string' ? window.has(taken) : taken.sum.some((signal) => window.has(signal));
    // No datapoint of the subtracted term is nothing to subtract: EKS publishes no webhook latency in a minute
    // without webhook calls, and that minute's write latency is all the apiserver's own.
    const subtracted = provided ? (termAt(window, taken, back) ?? 0) : 0;
    return Math.max(0, from - subtracted);
  }
  const counts = countsAt(window, operand, back);
  if (counts === null) return null;
  const { events: numerator, trials: denominator } = counts;
  // Too little traffic to judge a share: report no failure rather than a noisy ratio.
  if (denominator <= 0 || denominator < (operand.minDenominator ?? 0)) return 0;
  if (operand.confidence && reading === 'bound') return shareLowerBound(numerator, denominator, operand.confidence);
  return numerator / denominator;
}

/** The numerator and denominator of a ratio at one sample; null when either is missing. */
function countsAt(window: SignalWindow, operand: RatioOperand, back: number): ShareCounts | null {
  const [top, bottom] = operand.ratio;
  const events =
    typeof top === 'object' && 'difference' in top ? operandAt(window, top, back) : termAt(window, top, back);
  const trials = termAt(window, bottom, back);
  return events === null || trials === null ? null : { events, trials };
}

/**
 * A ratio's numerators and denominators added up over `count` samples from `from` back, where both are present, and
 * how many samples are.
 */
function pooledCounts(
  window: SignalWindow,
  operand: RatioOperand,
  from: number,
  count: number,
): ShareCounts & { readonly present: number } {
  let events = 0;
  let trials = 0;
  let present = 0;
  for (let back = from; back < from + count; back++) {
    const counts = countsAt(window, operand, back);
    if (counts === null) continue;
    present++;
    if (!(counts.trials > 0)) continue;
    events += Math.min(counts.events, counts.trials);
    trials += counts.trials;
  }
  return { events, trials, present };
}

function unitOf(operand: Operand): string {
  if (typeof operand === 'object' && 'ratio' in operand) return 'ratio';
  const [first] = operandSignals(operand);
  return first ? SIGNALS[first].unit : '';
}

/** Whether an operand counts events (a count signal or a sum of them): a window of it is best told as a total. */
function countsEvents(operand: Operand): boolean {
  if (typeof operand === 'object' && ('ratio' in operand || 'difference' in operand)) return false;
  return operandSignals(operand).every((signal) => SIGNALS[signal].kind === 'count');
}

interface Collected {
  readonly values: readonly number[];
  readonly missing: number;
  /** Every sample in time order, missing ones as null: where the gaps fall matters to an episode count. */
  readonly samples: readonly (number | null)[];
}

function collect(
  window: SignalWindow,
  operand: Operand,
  from: number,
  count: number,
  reading: ShareReading = 'bound',
): Collected {
  const values: number[] = [];
  const samples: (number | null)[] = [];
  let missing = 0;
  // Oldest first, so that episodes are counted in time order.
  for (let back = from + count - 1; back >= from; back--) {
    const value = operandAt(window, operand, back, reading);
    samples.push(value);
    if (value === null) missing++;
    else values.push(value);
  }
  return { values, missing, samples };
}

/**
 * The fewest and most episodes the window could hold once its missing samples arrive, each either way: a missing
 * sample can start an episode of its own, or join two into one. Counted over both states of the sample before
 * (inside an episode or not), so the bounds are exact.
 */
function episodeBounds(
  samples: readonly (number | null)[],
  passes: (value: number) => boolean,
): { fewest: number; most: number } {
  // [fewest, most] episodes so far, ending outside an episode and inside one; unreachable as [Infinity, -Infinity].
  let outside: [number, number] = [0, 0];
  let inside: [number, number] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  for (const sample of samples) {
    const canPass = sample === null || passes(sample);
    const canFail = sample === null || !passes(sample);
    const nextOutside: [number, number] = canFail
      ? [Math.min(outside[0], inside[0]), Math.max(outside[1], inside[1])]
      : [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
    const nextInside: [number, number] = canPass
      ? [Math.min(outside[0] + 1, inside[0]), Math.max(outside[1] + 1, inside[1])]
      : [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
    outside = nextOutside;
    inside = nextInside;
  }
  return { fewest: Math.min(outside[0], inside[0]), most: Math.max(outside[1], inside[1]) };
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
 * With gaps in the window, decide only when the gaps cannot change the answer. Sums and maxima of non-negative
 * signals can only grow as samples arrive, minima only shrink; counts (each gap adds at most one) and episode counts
 * are bounded both ways; averages are trusted above a minimum coverage.
 */
function verdictWithGaps(
  how: Aggregate,
  op: Comparator,
  threshold: number,
  passed: boolean,
  collected: Collected,
  where?: (value: number) => boolean,
): Verdict {
  const { values, missing } = collected;
  if (values.length === 0) return 'unknown';
  if (missing === 0) return passed ? 'met' : 'unmet';
  if (how === 'episodes') {
    // Decided only when every way the gaps could fill gives the same answer: the newest minutes missing could hold
    // the episode that makes the count, or the gap between two episodes the sample that makes them one.
    if (values.length / (values.length + missing) < MIN_COVERAGE) return 'unknown';
    const { fewest, most } = episodeBounds(collected.samples, where ?? (() => false));
    const atFewest = compare(fewest, op, threshold);
    if (atFewest !== compare(most, op, threshold)) return 'unknown';
    return atFewest ? 'met' : 'unmet';
  }
  if (how === 'count') {
    // Each missing sample adds at most one to a count: decided when the fewest and the most the gaps allow agree.
    const fewest = where ? values.filter(where).length : values.length;
    const atFewest = compare(fewest, op, threshold);
    if (atFewest !== compare(fewest + missing, op, threshold)) return 'unknown';
    return atFewest ? 'met' : 'unmet';
  }
  if (how === 'avg') {
    if (values.length / (values.length + missing) < MIN_COVERAGE) return 'unknown';
    return passed ? 'met' : 'unmet';
  }
  const grows = how !== 'min';
  const upward = op === '>' || op === '>=';
  if (grows === upward) return passed ? 'met' : 'unknown';
  return passed ? 'unknown' : 'unmet';
}

/**
 * The longest run of missing samples in an m-of-n window that the samples on both sides of it decide. CloudWatch
 * itself reaches past missing datapoints when it evaluates an alarm, over a range a few datapoints longer than its
 * evaluation periods ("How alarm state is evaluated when data is missing", Amazon CloudWatch User Guide); a
 * Container Insights agent that loses its leader, or a late batch, leaves a minute or two out of a climb that the
 * minutes around it have already decided.
 */
export const BRIDGED_GAP_SAMPLES = 2;

/**
 * Whether a missing sample of an m-of-n window (`samples` newest first) counts as passing: when it lies in a run of at
 * most BRIDGED_GAP_SAMPLES missing samples between two present ones that both pass. Otherwise it stays missing. Only
 * ever towards passing, never failing: a gap can complete a condition the minutes around it decided, and never start a
 * rule clearing (the newest samples missing, with nothing after them, stay missing too).
 */
function bridgedPassing(samples: readonly Sample[], back: number, passes: (value: number) => boolean): boolean {
  // Neither side is looked for further than a bridgeable gap reaches.
  let newer = back - 1;
  while (newer >= 0 && back - newer <= BRIDGED_GAP_SAMPLES && samples[newer] === null) newer--;
  let older = back + 1;
  while (older < samples.length && older - back <= BRIDGED_GAP_SAMPLES && samples[older] === null) older++;
  const before = samples[older];
  const after = samples[newer];
  if (before === null || before === undefined || after === null || after === undefined) return false;
  return older - newer - 1 <= BRIDGED_GAP_SAMPLES && passes(before) && passes(after);
}

const samplesOf = (n: number) => `${n} sample${n === 1 ? '' : 's'}`;

export function evaluateCondition(condition: Condition, window: SignalWindow, params: Params): ConditionResult {
  if (condition.kind === 'allOf' || condition.kind === 'anyOf' || condition.kind === 'noneOf') {
    return combine(condition.kind, condition.conditions, window, params);
  }
  const has = (signal: SignalName) => window.has(signal);
  // An absence is judged on the signals the cluster provides; any other condition as its operand allows.
  const coverage =
    condition.kind === 'absent'
      ? { runnable: condition.of.some(has), missing: condition.of.filter((signal) => !has(signal)) }
      : condition.kind === 'change' && condition.per
        ? bothOperands(operandCoverage(condition.of, has), operandCoverage(condition.per, has))
        : operandCoverage(condition.of, has);
  const lacking = [...new Set(coverage.missing)];
  if (!coverage.runnable) return { verdict: 'skipped', evidence: [], lacking };

  if (condition.kind === 'absent') {
    const samples = durationSamples(condition.window, window.stepSeconds);
    const provided = condition.of.filter(has);
    let seen = 0;
    for (const signal of provided) {
      for (let back = 0; back < samples; back++) if (window.sample(signal, back) !== null) seen++;
    }
    // Met when nothing was seen: no datapoint at all, `<= 0` of them.
    return decidedBy(
      {
        what: `${DATAPOINTS_OF}${provided.join(', ')}`,
        over: `last ${condition.window}`,
        observed: seen,
        op: '<=',
        threshold: 0,
        unit: 'count',
        condition: { kind: 'absent', of: condition.of },
      },
      lacking,
    );
  }

  const threshold = resolveThreshold(condition.value, params);
  const comparisonOf = (observed: number, over: string): Comparison => ({
    what: describeOperand(condition.kind === 'change' ? asQuotient(condition.of) : condition.of),
    over,
    observed,
    op: condition.op,
    threshold,
    unit: unitOf(condition.of),
    condition: { kind: condition.kind, of: condition.of },
  });

  switch (condition.kind) {
    case 'threshold': {
      const value = operandAt(window, condition.of, 0);
      if (value === null) return { verdict: 'unknown', evidence: [], lacking };
      return decidedBy(comparisonOf(value, 'latest sample'), lacking);
    }
    case 'sustained': {
      const passes = (value: number) => compare(value, condition.op, threshold);
      // Newest first, with the samples just before the window that can close a gap at its start.
      const samples: Sample[] = [];
      for (let back = 0; back < condition.n + BRIDGED_GAP_SAMPLES; back++) {
        samples.push(operandAt(window, condition.of, back));
      }
      const present: number[] = [];
      let passing = 0;
      let missing = 0;
      let bridged = 0;
      for (let back = 0; back < condition.n; back++) {
        const value = samples[back] ?? null;
        if (value !== null) {
          present.push(value);
          if (passes(value)) passing++;
          continue;
        }
        if (bridgedPassing(samples, back, passes)) {
          bridged++;
          passing++;
        } else missing++;
      }
      const verdict: Verdict = passing >= condition.m ? 'met' : passing + missing < condition.m ? 'unmet' : 'unknown';
      // Most extreme first: a met condition shows its peak; an unmet one shows the level its m best samples reached,
      // which is how close it came (a near miss), rather than whatever the newest sample happened to be.
      const upward = condition.op === '>' || condition.op === '>=';
      const ranked = present.sort((a, b) => (upward ? b - a : a - b));
      const observed = (verdict === 'met' ? ranked[0] : (ranked[condition.m - 1] ?? ranked.at(-1))) ?? 0;
      const across =
        bridged > 0 ? `; ${bridged} missing, read as passing like the samples on both sides of the gap` : '';
      const over = `${passing} of last ${samplesOf(condition.n)}, needs ${condition.m}${across}`;
      return { verdict, evidence: [evidenceOf(comparisonOf(observed, over), verdict === 'met')], lacking };
    }
    case 'window': {
      const samples = durationSamples(condition.window, window.stepSeconds);
      const share = pooledWindowShare(condition);
      if (share) return pooledWindow(condition, share, window, samples, threshold, lacking);
      const collected = collect(window, condition.of, 0, samples);
      if (collected.values.length === 0) return { verdict: 'unknown', evidence: [], lacking };
      const where = condition.where;
      const filter = where
        ? (value: number) => compare(value, where.op, resolveThreshold(where.value, params))
        : undefined;
      const value = aggregate(collected.values, condition.aggregate, filter);
      const passed = compare(value, condition.op, threshold);
      const verdict = verdictWithGaps(condition.aggregate, condition.op, threshold, passed, collected, filter);
      const qualifier = where
        ? ` with ${describeOperand(condition.of)} ${where.op} ${resolveThreshold(where.value, params)}`
        : '';
      const comparison = comparisonOf(value, `${condition.aggregate} over ${condition.window}${qualifier}`);
      const counted = condition.aggregate === 'count' || condition.aggregate === 'episodes';
      return {
        verdict,
        evidence: [evidenceOf(counted ? { ...comparison, unit: 'count' } : comparison, passed)],
        lacking,
      };
    }
    case 'change': {
      // An average share weighs its windows' pooled counts. Otherwise each sample is read as its plain quotient:
      // each window holds many samples, and a bound on each would move with the traffic rather than with the share.
      const share = pooledShare(condition);
      if (share) return shareChange(condition, share, window, threshold, lacking);
      const windows = changeWindows(condition, window, condition.of);
      if (!windows) return { verdict: 'unknown', evidence: [], lacking };
      const { recent, baseline } = windows;
      const now = aggregate(recent.values, condition.aggregate);
      const before = aggregate(baseline.values, condition.aggregate);
      if (condition.per) return changePer(condition, condition.per, window, now - before, threshold, lacking);
      if (condition.mode === 'ratio' && before === 0 && now > 0) {
        // Any rise from nothing is an infinite ratio; the evidence says what happened instead: none before, N now.
        const passed = compare(Number.POSITIVE_INFINITY, condition.op, threshold);
        const total = countsEvents(condition.of) ? aggregate(recent.values, 'sum') : now;
        const what = countsEvents(condition.of) ? '' : ` (${condition.aggregate})`;
        const evidence = evidenceOf(
          {
            what: describeOperand(asQuotient(condition.of)),
            over: `none in the ${condition.baseline} before, ${formatCount(total)}${what} in the last ${condition.window}`,
            observed: total,
            op: '>',
            threshold: 0,
            unit: countsEvents(condition.of) ? 'count' : unitOf(condition.of),
            condition: { kind: 'change', of: condition.of },
          },
          passed,
        );
        return { verdict: passed ? 'met' : 'unmet', evidence: [evidence], lacking };
      }
      const change = condition.mode === 'delta' ? now - before : before === 0 ? 1 : now / before;
      const over = `${condition.aggregate} over ${condition.window} vs the ${condition.baseline} before (${condition.mode})`;
      return decidedBy(
        { ...comparisonOf(change, over), unit: condition.mode === 'ratio' ? 'x' : unitOf(condition.of) },
        lacking,
      );
    }
  }
}

/** How many samples a change condition's windows span, present or not: the recent one, and the baseline before it. */
interface ChangeSpans {
  readonly recent: number;
  readonly baseline: number;
}

function changeSpans(condition: ChangeCondition, stepSeconds: number): ChangeSpans {
  return {
    recent: durationSamples(condition.window, stepSeconds),
    baseline: durationSamples(condition.baseline, stepSeconds),
  };
}

/** Whether a change can be judged: the recent window holds half its samples, the baseline what it needs to be trusted. */
function changeCovered(spans: ChangeSpans, recentPresent: number, baselinePresent: number): boolean {
  return (
    recentPresent > 0 &&
    recentPresent / spans.recent >= MIN_COVERAGE &&
    baselinePresent > 0 &&
    baselinePresent >= minimumBaselineSamples(spans.recent, spans.baseline)
  );
}

/** The samples of a change condition's recent window and of the baseline just before it, as plain quotients. */
interface ChangeWindows {
  readonly recent: Collected;
  readonly baseline: Collected;
}

/**
 * The windows a change condition weighs against each other, read for `operand` (its own, or its `per`): undefined
 * while they cannot be judged.
 */
function changeWindows(condition: ChangeCondition, window: SignalWindow, operand: Operand): ChangeWindows | undefined {
  const spans = changeSpans(condition, window.stepSeconds);
  const recent = collect(window, operand, 0, spans.recent, 'point');
  const baseline = collect(window, operand, spans.recent, spans.baseline, 'point');
  return changeCovered(spans, recent.values.length, baseline.values.length) ? { recent, baseline } : undefined;
}

/** A share of events read with a confidence. */
type BoundedShare = RatioOperand & { readonly confidence: ShareConfidence };

/** The share of events whose counts an average change pools: a ratio read with a confidence, and no `per`. */
function pooledShare(condition: ChangeCondition): BoundedShare | undefined {
  const { of } = condition;
  if (condition.per || condition.aggregate !== 'avg') return undefined;
  if (typeof of !== 'object' || !('ratio' in of) || !of.confidence) return undefined;
  return { ...of, confidence: of.confidence };
}

/**
 * The change of a share of events between the windows as far as their counts support it. Each window's events and
 * trials are pooled (the hour's 5xx over its requests, so a busy minute weighs more than a quiet one), and the change
 * is read at the end of its interval nearest to no change: a rise by the lower end, a fall by the upper. A difference
 * takes Newcombe's hybrid score interval, built from the two windows' Wilson intervals ("Interval estimation for the
 * difference between independent proportions", Statistics in Medicine 1998, method 10); a ratio divides the recent
 * window's near end by the baseline's far end. A difference that a few hundred requests cannot tell from chance
 * does not count as a rise, while one of thousands still does.
 */
function shareChange(
  condition: ChangeCondition,
  share: BoundedShare,
  window: SignalWindow,
  threshold: number,
  lacking: readonly SignalName[],
): ConditionResult {
  const spans = changeSpans(condition, window.stepSeconds);
  const recent = pooledCounts(window, share, 0, spans.recent);
  const baseline = pooledCounts(window, share, spans.recent, spans.baseline);
  if (!changeCovered(spans, recent.present, baseline.present)) return { verdict: 'unknown', evidence: [], lacking };
  const now = shareInterval(recent, share.confidence);
  const before = shareInterval(baseline, share.confidence);
  const [p1, p0] = [quotientOf(recent), quotientOf(baseline)];
  const rise = condition.op === '>' || condition.op === '>=';
  // Wilson upper ends are above zero, so a ratio's divisor is zero only for a fall from what may have been nothing:
  // no fall the counts support, read as a ratio of 1 (an infinite one could not be stored with its evidence).
  const change =
    condition.mode === 'delta'
      ? rise
        ? p1 - p0 - Math.hypot(p1 - now.lower, before.upper - p0)
        : p1 - p0 + Math.hypot(now.upper - p1, p0 - before.lower)
      : rise
        ? now.lower / before.upper
        : before.lower === 0
          ? 1
          : now.upper / before.lower;
  return decidedBy(
    {
      what: describeOperand(asQuotient(share)),
      over: `${condition.window} vs the ${condition.baseline} before, counts pooled, ${condition.mode} at its ${share.confidence * 100} % ${rise ? 'lower' : 'upper'} bound`,
      observed: change,
      op: condition.op,
      threshold,
      unit: condition.mode === 'ratio' ? 'x' : 'ratio',
      condition: { kind: 'change', of: condition.of },
    },
    lacking,
  );
}

/** The share of events whose counts an average over a window pools: a ratio read with a confidence. */
function pooledWindowShare(condition: WindowCondition): BoundedShare | undefined {
  const { of } = condition;
  if (condition.aggregate !== 'avg' || typeof of !== 'object' || !('ratio' in of) || !of.confidence) return undefined;
  return { ...of, confidence: of.confidence };
}

/**
 * The average of a share of events over a window: the window's events over its trials, pooled (a busy minute weighs
 * more than a quiet one), read at the end of its interval nearest to the threshold's far side, the lower end for `>=`.
 * A minute at 60 % and two at 2 % are a fifth of the requests failing, however each minute alone reads. Trusted above
 * the minimum coverage, as other averages are.
 */
function pooledWindow(
  condition: WindowCondition,
  share: BoundedShare,
  window: SignalWindow,
  samples: number,
  threshold: number,
  lacking: readonly SignalName[],
): ConditionResult {
  const counts = pooledCounts(window, share, 0, samples);
  if (counts.present === 0 || counts.present / samples < MIN_COVERAGE) {
    return { verdict: 'unknown', evidence: [], lacking };
  }
  const upward = condition.op === '>' || condition.op === '>=';
  const interval = shareInterval(counts, share.confidence);
  // Too few trials in the whole window to judge a share: no failure, as a single sample reads it.
  const observed = counts.trials < (share.minDenominator ?? 0) ? 0 : upward ? interval.lower : interval.upper;
  return decidedBy(
    {
      what: describeOperand(asQuotient(share)),
      over: `avg over ${condition.window}, counts pooled, at its ${share.confidence * 100} % ${upward ? 'lower' : 'upper'} bound`,
      observed,
      op: condition.op,
      threshold,
      unit: 'ratio',
      condition: { kind: 'window', of: condition.of },
    },
    lacking,
  );
}

/** A share's plain quotient; none of no trials. */
function quotientOf({ events, trials }: ShareCounts): number {
  return trials > 0 ? events / trials : 0;
}

/** A condition on two operands needs both to run; what either lacks is left out. */
function bothOperands(a: OperandCoverage, b: OperandCoverage): OperandCoverage {
  return { runnable: a.runnable && b.runnable, missing: [...a.missing, ...b.missing] };
}

/**
 * The rise of a change condition's operand for each unit its `per` operand rose, over the same windows: unknown while
 * `per` has not risen to twice its baseline (nothing clear to account for) or lacks the history, so that it neither
 * fires nor resolves on it.
 */
function changePer(
  condition: ChangeCondition,
  per: Operand,
  window: SignalWindow,
  rise: number,
  threshold: number,
  lacking: readonly SignalName[],
): ConditionResult {
  const windows = changeWindows(condition, window, per);
  if (!windows) return { verdict: 'unknown', evidence: [], lacking };
  const { recent, baseline } = windows;
  const perBefore = aggregate(baseline.values, condition.aggregate);
  const perRise = aggregate(recent.values, condition.aggregate) - perBefore;
  // A rise smaller than the baseline it stands on cannot carry a ratio: noise divided by noise, or an event the
  // baseline has taken in after it went on for a while.
  if (!(perRise > 0) || perRise < perBefore) return { verdict: 'unknown', evidence: [], lacking };
  return decidedBy(
    {
      what: describeOperand(asQuotient(condition.of)),
      over: `${condition.aggregate} over ${condition.window} vs the ${condition.baseline} before, per rise of ${describeOperand(asQuotient(per))}`,
      observed: rise / perRise,
      op: condition.op,
      threshold,
      unit: 'x',
      condition: { kind: 'change', of: condition.of },
    },
    lacking,
  );
}

/** A count for a sentence: whole numbers as they are, others to three significant digits. */
function formatCount(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(3)));
}

function combine(
  kind: 'allOf' | 'anyOf' | 'noneOf',
  conditions: readonly Condition[],
  window: SignalWindow,
  params: Params,
): ConditionResult {
  const results = conditions.map((condition) => evaluateCondition(condition, window, params));
  const having = (verdict: Verdict) => results.filter((r) => r.verdict === verdict);
  // Branches can share a comparison (a stall that two ways of failing both need): each is shown once.
  const evidenceOf = (rs: readonly ConditionResult[]) => {
    const seen = new Set<string>();
    return rs
      .flatMap((r) => r.evidence)
      .filter((e) => {
        const key = `${e.what}|${e.over}|${e.op}|${e.threshold}|${e.observed}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
  };
  // Every signal a branch lacks is reported, whether the branch was skipped or ran without it.
  const lacking = [...new Set(results.flatMap((r) => r.lacking))];

  if (kind === 'noneOf') {
    const seen = having('met');
    // The evidence of a met noneOf is an absence, which has nothing to show; an unmet one shows what was seen.
    return seen.length > 0
      ? { verdict: 'unmet', evidence: evidenceOf(seen), lacking }
      : { verdict: 'met', evidence: [], lacking };
  }
  if (kind === 'allOf') {
    // Every condition of an allOf is needed: one that cannot run means the whole cannot be decided.
    if (having('skipped').length > 0) return { verdict: 'skipped', evidence: [], lacking };
    const unmet = having('unmet');
    if (unmet.length > 0) return { verdict: 'unmet', evidence: evidenceOf(unmet), lacking };
    if (having('unknown').length > 0) return { verdict: 'unknown', evidence: evidenceOf(having('met')), lacking };
    return { verdict: 'met', evidence: evidenceOf(results), lacking };
  }
  const evaluated = results.filter((r) => r.verdict !== 'skipped');
  if (evaluated.length === 0) return { verdict: 'skipped', evidence: [], lacking };
  const met = having('met');
  if (met.length > 0) return { verdict: 'met', evidence: evidenceOf(met), lacking };
  if (having('unknown').length > 0) return { verdict: 'unknown', evidence: evidenceOf(having('unmet')), lacking };
  return { verdict: 'unmet', evidence: evidenceOf(evaluated), lacking };
}

/** How many samples of history a condition reads, so that a poll fetches enough and no more. */
export function conditionLookback(condition: Condition, stepSeconds: number): number {
  switch (condition.kind) {
    case 'threshold':
      return 1;
    case 'sustained':
      // The samples before the window that can close a gap at its start (BRIDGED_GAP_SAMPLES).
      return condition.n + BRIDGED_GAP_SAMPLES;
    case 'window':
    case 'absent':
      return durationSamples(condition.window, stepSeconds);
    case 'change':
      return durationSamples(condition.window, stepSeconds) + durationSamples(condition.baseline, stepSeconds);
    default:
      return Math.max(1, ...condition.conditions.map((c) => conditionLookback(c, stepSeconds)));
  }
}
