import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { POLL_BOUNDS } from '../../shared/engine/bounds.ts';
import type { RecordedTripwireState, TripwireAlarmState } from '../../shared/pipeline/ports.ts';
import {
  tripwireNeedsWriting,
  tripwireRenewalWindowMs,
  tripwireStateExpiresAt,
} from '../../shared/pipeline/tripwire-state.ts';
import { DAY_MS, MINUTE_MS } from '../../shared/time.ts';
import { seededRandom } from '../../support/seeded-random.ts';

const T = Date.parse('2026-11-20T10:00:00Z');

/** Every slow cycle a configuration may set: whole minutes within POLL_BOUNDS.every. */
const cycleMs = fc
  .integer({ min: POLL_BOUNDS.every.minSeconds / 60, max: POLL_BOUNDS.every.maxSeconds / 60 })
  .map((minutes) => minutes * MINUTE_MS);
const state = fc.constantFrom('ALARM', 'OK', 'INSUFFICIENT_DATA');
const instant = fc.integer({ min: T - 3 * DAY_MS, max: T + 3 * DAY_MS });
const alarm = fc.record({ cluster: fc.constant('dev-a'), state, changedAt: instant });
const recorded = fc.record(
  { state, changedAt: instant, expiresAt: instant },
  { requiredKeys: ['state', 'expiresAt'] },
) as fc.Arbitrary<RecordedTripwireState>;

/** A lateness the deployed poller stays within, at Lambda's longest: a minute of retries, a 15-minute timeout. */
const MOST_LATE_MS = MINUTE_MS;
const LONGEST_POLL_MS = 15 * MINUTE_MS;

describe('whether the refresh writes a tripwire state', () => {
  it('never skips a state that differs from the recorded one, in state or in when it changed', () => {
    fc.assert(
      fc.property(
        alarm,
        recorded,
        instant,
        cycleMs,
        (cloudWatch: TripwireAlarmState, table: RecordedTripwireState, now: number, cycle: number) => {
          fc.pre(table.state !== cloudWatch.state || table.changedAt !== cloudWatch.changedAt);
          expect(tripwireNeedsWriting(cloudWatch, table, now, cycle)).toBe(true);
        },
      ),
    );
  });

  it('writes a state the table does not hold', () => {
    fc.assert(
      fc.property(alarm, instant, cycleMs, (cloudWatch, now, cycle) => {
        expect(tripwireNeedsWriting(cloudWatch, undefined, now, cycle)).toBe(true);
      }),
    );
  });

  it('skips an unchanged state that outlives the refresh after next, and renews one that does not', () => {
    fc.assert(
      fc.property(
        alarm,
        instant,
        cycleMs,
        fc.integer({ min: -DAY_MS, max: DAY_MS }),
        (cloudWatch, now, cycle, expiresIn) => {
          const table = { state: cloudWatch.state, changedAt: cloudWatch.changedAt, expiresAt: now + expiresIn };
          const farFromExpiry = expiresIn > tripwireRenewalWindowMs(cycle);
          expect(tripwireNeedsWriting(cloudWatch, table, now, cycle)).toBe(!farFromExpiry);
        },
      ),
    );
  });

  it('never lets a held ALARM expire while no two refreshes in a row fail', () => {
    fc.assert(
      fc.property(heldAlarm, (held) => {
        expect(refreshedForThreeDays(held).lapses).toEqual([]);
      }),
    );
  });

  it('writes a held ALARM about once a day, not once a cycle', () => {
    fc.assert(
      fc.property(heldAlarm, (held) => {
        // A write renews the state for a day less the renewal window; a failed refresh defers it by a cycle.
        const between = DAY_MS - tripwireRenewalWindowMs(held.cycle) - held.cycle;
        expect(refreshedForThreeDays(held).writes).toBeLessThanOrEqual(1 + Math.ceil(SIMULATED_MS / between));
      }),
    );
  });
});

const SIMULATED_MS = 3 * DAY_MS;

/** An alarm that holds ALARM since `changedAt`, its event recorded `recordedAfter` later or never, and the cycle. */
interface HeldAlarm {
  readonly cycle: number;
  readonly changedAt: number;
  readonly recordedAfter: number | undefined;
  /** Draws each refresh's lateness, its poll's length, and whether it fails. */
  readonly seed: number;
}

const heldAlarm: fc.Arbitrary<HeldAlarm> = fc.record({
  cycle: cycleMs,
  changedAt: fc.integer({ min: T - 3 * DAY_MS, max: T }),
  recordedAfter: fc.option(fc.integer({ min: 0, max: 3 * DAY_MS }), { nil: undefined }),
  seed: fc.integer(),
});

/**
 * Three days of slow cycles over an alarm that holds ALARM throughout, as the poller runs them: each refresh starts up
 * to a minute after its schedule and writes until its poll ends, up to 15 minutes later; any refresh but the first may
 * fail, never two in a row. Before the first, the table holds the alarm's event, recorded at any time since the
 * change, or nothing. Every write is as the recorder makes it (tripwireStateExpiresAt). Returns the refreshes whose
 * writes landed after the state had expired (the polls meanwhile read no ALARM), and how many writes were made.
 */
function refreshedForThreeDays(held: HeldAlarm): { lapses: number[]; writes: number } {
  const { cycle, changedAt, recordedAfter, seed } = held;
  const random = seededRandom(seed);
  const alarm: TripwireAlarmState = { cluster: 'dev-a', state: 'ALARM', changedAt };
  let table: RecordedTripwireState | undefined =
    recordedAfter === undefined || changedAt + recordedAfter > T
      ? undefined
      : { state: 'ALARM', changedAt, expiresAt: tripwireStateExpiresAt(changedAt, changedAt + recordedAfter) };
  const lapses: number[] = [];
  let writes = 0;
  let failedLast = false;
  for (let k = 0; k * cycle <= SIMULATED_MS; k++) {
    const now = T + k * cycle + Math.floor(random() * MOST_LATE_MS);
    const landed = now + Math.floor(random() * LONGEST_POLL_MS);
    // Until this refresh's writes land, the polls read what the earlier ones left.
    if (k > 0 && (table?.expiresAt ?? 0) <= landed) lapses.push(k);
    const fails: boolean = k > 0 && !failedLast && random() < 0.5;
    failedLast = fails;
    if (!fails && tripwireNeedsWriting(alarm, table, now, cycle)) {
      table = { state: 'ALARM', changedAt, expiresAt: tripwireStateExpiresAt(changedAt, now) };
      writes++;
    }
  }
  return { lapses, writes };
}
