import { DAY_MS, MINUTE_MS } from '../time.ts';
import type { RecordedTripwireState, TripwireAlarmState } from './ports.ts';

/**
 * How long a recorded tripwire state lives after its change or its last write, whichever is later: a tripwire left in
 * ALARM (its alarm deleted, say) stops arming a day after it was last recorded rather than polling forever. The slow
 * cycle's refresh writes a state again before it expires, so an alarm that still holds never does.
 */
export const TRIPWIRE_STATE_LIFETIME_MS = DAY_MS;

/**
 * When a state recorded at `now` expires (epoch ms, in whole seconds, as DynamoDB's TTL attribute counts them): a
 * day after the change, or after `now` when the change is older.
 */
export function tripwireStateExpiresAt(changedAt: number, now: number): number {
  return Math.floor(Math.max(changedAt, now) / 1000) * 1000 + TRIPWIRE_STATE_LIFETIME_MS;
}

/**
 * How long before its expiry, beyond two slow cycles, an unchanged state is written again. The refresh after this one
 * may not run (its step taken by another invocation, DescribeAlarms refusing it: the recorded states then stand until
 * the next cycle), so the refresh after next must still find the state live and renew it, two cycles from now; and
 * the polls that read the table until its writes land must find it live too. Those land a poll's lateness and run
 * after its step's schedule: as deployed, at most a minute of the schedule's retries (infra/poller.ts) and the
 * poller's 50 s timeout (infra/ops-stack.ts). The margin takes them at Lambda's longest, a 15-minute timeout and a
 * minute of retries, rounded up to 20 minutes, so that a longer timeout cannot let a state lapse. At the default
 * 20-minute cadence a state is then renewed 23 hours after it was written: once a day, where a cycle early or late
 * would change nothing worth counting.
 */
export const TRIPWIRE_RENEWAL_MARGIN_MS = 20 * MINUTE_MS;

/** How far ahead of `now` a recorded state's expiry has the refresh write it again, with slow cycles `cycleMs` long. */
export function tripwireRenewalWindowMs(cycleMs: number): number {
  return 2 * cycleMs + TRIPWIRE_RENEWAL_MARGIN_MS;
}

/**
 * Whether the refresh writes `alarm` (its state as CloudWatch holds it now) over `recorded` (what the table held when
 * the poll read it; undefined when it held nothing, or when the store does not say). It does when they differ, in
 * state or in when the state changed, and when they are the same but the recorded one expires within the renewal
 * window of `now` (two cycles and TRIPWIRE_RENEWAL_MARGIN_MS). Anything else is already recorded and stays live
 * until a later refresh renews it. The poll's read may be seconds older than the table: a state an event recorded
 * since is newer than the one compared, and a write over it is refused by the recorder's condition or writes the same.
 */
export function tripwireNeedsWriting(
  alarm: TripwireAlarmState,
  recorded: RecordedTripwireState | undefined,
  now: number,
  cycleMs: number,
): boolean {
  if (recorded === undefined) return true;
  if (recorded.state !== alarm.state || recorded.changedAt !== alarm.changedAt) return true;
  return recorded.expiresAt <= now + tripwireRenewalWindowMs(cycleMs);
}
