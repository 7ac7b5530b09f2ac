import type { Duration } from './duration.ts';
import type { SignalName } from './signals.ts';

export type Comparator = '>' | '>=' | '<' | '<=';

/** A number, or `$name`: a rule parameter that a cluster can override. */
export type Threshold = number | `$${string}`;

/**
 * What a condition reads at each step: one signal, a sum of signals, the ratio of two such values, or the difference
 * of two (what is left of the first once the second is taken out, never below zero). A ratio's numerator may be a
 * difference: the share of the nodes replaced for a reason other than spot or scale-in.
 */
export type Term = SignalName | { readonly sum: readonly SignalName[] };
export type DifferenceOperand = { readonly difference: readonly [Term, Term] };
/**
 * The confidence at which a share of events is read by its lower bound: the two-sided Wilson score interval's lower
 * end at this level (z = 1.645, 1.96, 2.576 or 3.291).
 */
export type ShareConfidence = 0.9 | 0.95 | 0.99 | 0.999;
export const SHARE_CONFIDENCES: readonly ShareConfidence[] = [0.9, 0.95, 0.99, 0.999];

export type RatioOperand = {
  readonly ratio: readonly [Term | DifferenceOperand, Term];
  readonly minDenominator?: number;
  /**
   * A share of events (requests answered 5xx among all requests), read at each sample as the lowest share its counts
   * support at this confidence rather than as the bare quotient: 4 errors of 100 requests may well be 1.6 %, while
   * 4,000 of 100,000 are 3.9 % at least. Its average over a window pools the window's counts and reads their share
   * by its bound; a change of its average between windows pools each window's counts and reads the change as far as
   * they support it at this confidence; other changes compare the quotients.
   */
  readonly confidence?: ShareConfidence;
};
export type Operand = Term | RatioOperand | DifferenceOperand;

export type Aggregate = 'sum' | 'avg' | 'max' | 'min' | 'count' | 'episodes';

export interface ThresholdCondition {
  readonly kind: 'threshold';
  readonly of: Operand;
  readonly op: Comparator;
  readonly value: Threshold;
}

/** Met when at least `m` of the last `n` samples pass the comparison. */
export interface SustainedCondition {
  readonly kind: 'sustained';
  readonly of: Operand;
  readonly op: Comparator;
  readonly value: Threshold;
  readonly m: number;
  readonly n: number;
}

/**
 * An aggregate of the samples in a trailing window, compared with a threshold. `count` counts samples (those passing
 * `where`, when given); `episodes` counts separate runs of samples that pass `where`. The `avg` of a share read with a
 * `confidence` is the window's pooled events over its pooled trials, read at the end of its interval nearest to no
 * pass (the lower end for `>=`): a flapping outage's share of all requests, however each minute alone reads.
 */
export interface WindowCondition {
  readonly kind: 'window';
  readonly of: Operand;
  readonly aggregate: Aggregate;
  readonly window: Duration;
  readonly where?: { readonly op: Comparator; readonly value: Threshold };
  readonly op: Comparator;
  readonly value: Threshold;
}

/**
 * The recent window's aggregate against the baseline window just before it, as a ratio or a difference. With `per`
 * (and mode `delta`), the difference of `of` is divided by the difference of `per` over the same windows: how much
 * `of` rose for each unit `per` rose, such as the 5xx that came with each new webhook rejection. It is unknown while
 * `per` has not risen to twice its baseline: a smaller rise is noise, or an event the baseline has taken in. The
 * average of a share read with a `confidence` (and no `per`) is each window's pooled events over its pooled trials,
 * and the change is the one nearest to none that both windows' counts support at that confidence: a difference that
 * a few hundred requests cannot tell from chance is not a rise.
 */
export interface ChangeCondition {
  readonly kind: 'change';
  readonly of: Operand;
  readonly per?: Operand;
  readonly aggregate: 'avg' | 'max' | 'min' | 'sum';
  readonly window: Duration;
  readonly baseline: Duration;
  readonly mode: 'ratio' | 'delta';
  readonly op: Comparator;
  readonly value: Threshold;
}

/** Met when none of the signals has a single datapoint in the window: the cluster went dark. */
export interface AbsentCondition {
  readonly kind: 'absent';
  readonly of: readonly SignalName[];
  readonly window: Duration;
}

export interface AllOfCondition {
  readonly kind: 'allOf';
  readonly conditions: readonly Condition[];
}

export interface AnyOfCondition {
  readonly kind: 'anyOf';
  readonly conditions: readonly Condition[];
}

/**
 * Met unless one of the conditions is met. Unknown and unevaluable children count as "not seen": it expresses
 * "no visible cause of this kind", so a cluster without webhook metrics still gets its control-plane page.
 */
export interface NoneOfCondition {
  readonly kind: 'noneOf';
  readonly conditions: readonly Condition[];
}

export type Condition =
  | ThresholdCondition
  | SustainedCondition
  | WindowCondition
  | ChangeCondition
  | AbsentCondition
  | AllOfCondition
  | AnyOfCondition
  | NoneOfCondition;

/** The operand with its shares read as plain quotients, as a change between windows reads them. */
export function asQuotient<T extends Operand>(operand: T): T {
  if (typeof operand !== 'object' || !('ratio' in operand) || !operand.confidence) return operand;
  const { confidence: _bound, ...plain } = operand;
  return plain as T;
}

export function termSignals(term: Term): readonly SignalName[] {
  return typeof term === 'string' ? [term] : term.sum;
}

export function operandSignals(operand: Operand): readonly SignalName[] {
  if (typeof operand === 'object' && 'ratio' in operand) {
    return [...operandSignals(operand.ratio[0]), ...termSignals(operand.ratio[1])];
  }
  if (typeof operand === 'object' && 'difference' in operand) {
    return [...termSignals(operand.difference[0]), ...termSignals(operand.difference[1])];
  }
  return termSignals(operand);
}

/** Which signals a condition can do without, and whether it can run at all, on a cluster that provides `has`. */
export interface OperandCoverage {
  readonly runnable: boolean;
  readonly missing: readonly SignalName[];
}

/**
 * A sum runs on the signals the cluster provides (a cluster that publishes no 429 series still has its 5xx counted),
 * and so does the subtracted term of a difference; a ratio needs something on both sides, and a single signal needs
 * itself. What is left out is `missing`: the condition runs with partial coverage.
 */
export function operandCoverage(operand: Operand, has: (signal: SignalName) => boolean): OperandCoverage {
  const termCoverage = (term: Term): OperandCoverage => {
    const missing = termSignals(term).filter((signal) => !has(signal));
    return { runnable: missing.length < termSignals(term).length, missing };
  };
  const both = (a: OperandCoverage, b: OperandCoverage, runnable: boolean): OperandCoverage => ({
    runnable,
    missing: [...a.missing, ...b.missing],
  });
  if (typeof operand === 'object' && 'ratio' in operand) {
    const [top, bottom] = [operandCoverage(operand.ratio[0], has), termCoverage(operand.ratio[1])];
    return both(top, bottom, top.runnable && bottom.runnable);
  }
  if (typeof operand === 'object' && 'difference' in operand) {
    const [from, taken] = [termCoverage(operand.difference[0]), termCoverage(operand.difference[1])];
    return both(from, taken, from.runnable);
  }
  return termCoverage(operand);
}

export function conditionSignals(condition: Condition): readonly SignalName[] {
  switch (condition.kind) {
    case 'absent':
      return condition.of;
    case 'allOf':
    case 'anyOf':
    case 'noneOf':
      return [...new Set(condition.conditions.flatMap(conditionSignals))];
    case 'change':
      return [...new Set([...operandSignals(condition.of), ...(condition.per ? operandSignals(condition.per) : [])])];
    default:
      return operandSignals(condition.of);
  }
}

export function conditionParams(condition: Condition): readonly string[] {
  const param = (value: Threshold | undefined) =>
    typeof value === 'string' ? [value.slice(1)] : ([] as readonly string[]);
  switch (condition.kind) {
    case 'absent':
      return [];
    case 'allOf':
    case 'anyOf':
    case 'noneOf':
      return condition.conditions.flatMap(conditionParams);
    case 'window':
      return [...param(condition.value), ...param(condition.where?.value)];
    default:
      return param(condition.value);
  }
}

export function describeTerm(term: Term): string {
  return typeof term === 'string' ? term : `(${term.sum.join(' + ')})`;
}

export function describeOperand(operand: Operand): string {
  if (typeof operand === 'object' && 'ratio' in operand) {
    const [top, bottom] = operand.ratio;
    const numerator = typeof top === 'object' && 'difference' in top ? `(${describeOperand(top)})` : describeTerm(top);
    const bound = operand.confidence ? ` (${operand.confidence * 100} % lower bound)` : '';
    return `${numerator} / ${describeTerm(bottom)}${bound}`;
  }
  if (typeof operand === 'object' && 'difference' in operand) {
    return `${describeTerm(operand.difference[0])} - ${describeTerm(operand.difference[1])}`;
  }
  return describeTerm(operand);
}

/**
 * What a condition asks, in one line, as `sentinel incidents show` explains a rule: the m-of-n of a sustained
 * comparison, the window of an aggregate, and the parts of a combination.
 */
export function describeCondition(condition: Condition): string {
  switch (condition.kind) {
    case 'threshold':
      return `${describeOperand(condition.of)} ${condition.op} ${condition.value} at the newest sample`;
    case 'sustained':
      return `${describeOperand(condition.of)} ${condition.op} ${condition.value} in ${condition.m} of the last ${condition.n} samples`;
    case 'window': {
      const where = condition.where ? ` where ${condition.where.op} ${condition.where.value}` : '';
      return `${condition.aggregate} of ${describeOperand(condition.of)}${where} over ${condition.window} ${condition.op} ${condition.value}`;
    }
    case 'change': {
      const per = condition.per ? ` per rise of ${describeOperand(condition.per)}` : '';
      return `${condition.aggregate} of ${describeOperand(condition.of)} over ${condition.window}, as a ${condition.mode} to the ${condition.baseline} before${per}, ${condition.op} ${condition.value}`;
    }
    case 'absent':
      return `no datapoint of ${condition.of.join(', ')} for ${condition.window}`;
    case 'allOf':
      return `all of (${condition.conditions.map(describeCondition).join('; ')})`;
    case 'anyOf':
      return `any of (${condition.conditions.map(describeCondition).join('; ')})`;
    case 'noneOf':
      return `none of (${condition.conditions.map(describeCondition).join('; ')})`;
  }
}
