import { utf8Bytes } from './table-limits.ts';

/**
 * The write units a second DynamoDB serves one partition at most, on-demand tables included; items that share a
 * partition key (`OPEN`, `INCIDENT`, a `byDay` value) start out in one
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html).
 */
export const PARTITION_WRITE_UNITS_PER_SECOND = 1000;

/** The share of a partition's line the writes here keep to on average, so that a second writer finds room. */
const PACE_OF_LINE = 0.8;

/** How far ahead of the pace a partition's writes may run: at the pace, 0.96 of the line in any one second. */
const BURST_MS = 200;

/**
 * The write units of writing an item: one a kilobyte of it, rounded up
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html). Counted on its
 * JSON, a little more than the names and values DynamoDB counts, so that the pace errs on the slow side.
 */
export function itemWriteUnits(item: Record<string, unknown>): number {
  return Math.max(1, Math.ceil(utf8Bytes(JSON.stringify(item)) / 1024));
}

/** What pacing reads the time from and waits with. */
export interface PacingClock {
  now(): number;
  wait(ms: number): Promise<void>;
}

/** Time that never goes back (a wall clock set back would hold every write until it caught up). */
const MONOTONIC: PacingClock = {
  now: () => performance.now(),
  wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Keeps one process's writes to each partition key at four fifths of the partition's line on average, and under the
 * line in any one second: each partition's writes are spaced by the units they take, with a short burst allowed (a
 * generic cell rate algorithm: one clock a partition, so that a wait costs no scan of what was sent). Unpaced, a
 * fleet outage's step sends thousands of incident writes into one partition 32 at a time as fast as they return;
 * DynamoDB refuses most of them, and the SDK, whose retries draw on a quota of their own, soon stops retrying and
 * fails the step, and the next poll's roll-forward of it the same way.
 */
export class PartitionWritePacers {
  /** Per partition key, when (monotonic ms) the writes reserved so far are spent at the pace. */
  readonly #spentUntil = new Map<string, number>();
  readonly #unitsPerSecond: number;

  /**
   * `lineUnitsPerSecond`: what the table serves a partition, DynamoDB's line unless a stand-in holds another; `clock`:
   * the monotonic time and the wait (a test's own).
   */
  constructor(
    lineUnitsPerSecond: number = PARTITION_WRITE_UNITS_PER_SECOND,
    private readonly clock: PacingClock = MONOTONIC,
  ) {
    this.#unitsPerSecond = lineUnitsPerSecond * PACE_OF_LINE;
  }

  /** Resolves once a write of `units` to each of `partitions` keeps them at the pace, and counts it there. */
  async reserve(partitions: readonly string[], units: number): Promise<void> {
    const now = this.clock.now();
    const spentUntil = (partition: string) => this.#spentUntil.get(partition) ?? now;
    // A write starts once the writes before it, in every partition it touches, are spent to within a burst of then.
    const startAt = Math.max(now, ...partitions.map((partition) => spentUntil(partition) - BURST_MS));
    for (const partition of partitions) {
      this.#spentUntil.set(partition, Math.max(spentUntil(partition), startAt) + (units / this.#unitsPerSecond) * 1000);
    }
    if (startAt > now) await this.clock.wait(startAt - now);
  }
}
