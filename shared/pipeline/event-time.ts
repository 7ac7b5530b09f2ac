import { SentinelError } from '../errors.ts';
import { roughDuration } from '../time.ts';

/**
 * How far an event's own time may stand from the clock of the invocation that handles it. An event from the future
 * (a manual invoke, a replayed message, a clock fault) would move the step cursor or a tripwire's newest state past
 * every real event, and paging would stop; an event older than the sources retry for is not a retry but a replay.
 */
export const EVENT_TIME_TOLERANCE = {
  /** Clock skew between the scheduler and Lambda is milliseconds; two minutes leaves room for any NTP step. */
  aheadMs: 2 * 60_000,
  /**
   * EventBridge Scheduler retries a target for at most 24 hours (its retry policy's maximum event age), and an
   * EventBridge rule's target the same; a message redriven from a dead-letter queue later than that is refused.
   * https://docs.aws.amazon.com/scheduler/latest/APIReference/API_RetryPolicy.html (MaximumEventAgeInSeconds: 60 to 86400).
   */
  behindMs: 24 * 3_600_000,
} as const;

/** An event whose time is not a time, or lies outside the tolerance around the handler's clock. */
export class EventTimeError extends SentinelError {}

/** The event time in ms, or an EventTimeError that names the field, the value and how far off it is. */
export function eventTime(field: string, text: string, now: number): number {
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new EventTimeError(`${field}: "${text}" is not a time`);
  const skew = time - now;
  if (skew > EVENT_TIME_TOLERANCE.aheadMs || -skew > EVENT_TIME_TOLERANCE.behindMs) {
    throw new EventTimeError(
      `${field}: ${text} is ${roughDuration(Math.abs(skew))} ${skew > 0 ? 'ahead of' : 'behind'} this invocation's clock (${new Date(now).toISOString()}); events are accepted from ${roughDuration(EVENT_TIME_TOLERANCE.behindMs)} behind to ${roughDuration(EVENT_TIME_TOLERANCE.aheadMs)} ahead`,
    );
  }
  return time;
}

/** A step the ledger's clock has not reached yet: claiming it would move the cursor past every real poll. */
export class StepAheadOfClockError extends SentinelError {}

/**
 * Refuse to claim a step ahead of the clock. The ledgers call this first; a cursor that an earlier version or a clock
 * fault left ahead of the clock they treat as void (`behindClock`), so it cannot hold back real steps either.
 */
export function claimableStep(at: number, now: number): void {
  if (at > now) {
    throw new StepAheadOfClockError(
      `step ${new Date(at).toISOString()} is ahead of the clock (${new Date(now).toISOString()}): no poll may evaluate it yet`,
    );
  }
}

/** A cursor value, or undefined when it stands ahead of the clock and so cannot be a real step. */
export function behindClock(step: number | undefined, now: number): number | undefined {
  return step !== undefined && step <= now ? step : undefined;
}
