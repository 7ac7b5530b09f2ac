import type { Sample, SignalName } from './signals.ts';

/**
 * Read once: `sample` runs millions of times in a replay, and a global looked up on every call is slow inside Jest's
 * vm contexts, where it made the replay tests three times slower.
 */
const isNotANumber = Number.isNaN;

/**
 * The history of one cluster's signals that a rule can see at one step, newest sample last. Replay and the poller
 * both hand the engine one of these, so a rule cannot tell a scenario from CloudWatch.
 */
export interface SignalWindow {
  readonly stepSeconds: number;
  /** Whether the cluster provides this signal at all; a rule that needs a signal it lacks is skipped. */
  has(signal: SignalName): boolean;
  /** The sample `back` steps before the newest (0 = newest); null when missing or before the history starts. */
  sample(signal: SignalName, back: number): Sample;
}

/**
 * Samples by signal, oldest first. A series is an array of numbers and nulls, or (from CloudWatch, where a fleet's
 * history must stay small) a Float64Array in which NaN marks a missing sample.
 */
export type Series = ArrayLike<Sample>;
export type SeriesBySignal = Partial<Record<SignalName, Series>>;

/** A window over whole series whose newest sample is at index `end`: replay moves `end` instead of copying. */
export class SeriesWindow implements SignalWindow {
  constructor(
    private readonly series: SeriesBySignal,
    readonly stepSeconds: number,
    readonly end: number,
  ) {}

  has(signal: SignalName): boolean {
    return this.series[signal] !== undefined;
  }

  sample(signal: SignalName, back: number): Sample {
    const index = this.end - back;
    if (index < 0) return null;
    // Sources hand over finite numbers, null or NaN (scenario parsing and the CloudWatch reader see to it): this hot
    // path only tells missing from present.
    const value = this.series[signal]?.[index];
    // NaN is a missing sample of a Float64Array series.
    return value === undefined || value === null || isNotANumber(value) ? null : value;
  }
}
