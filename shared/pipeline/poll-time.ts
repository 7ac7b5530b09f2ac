import { durationMs } from '../engine/duration.ts';

/**
 * The step a scheduled poll evaluates. A one-minute sample at t covers [t, t + 1 min), so at scheduled time S the
 * newest complete sample starts one minute before S's minute; CloudWatch needs `ingestionLag` more to have it all.
 * A retried invocation carries the same scheduled time, so it evaluates the same step.
 */
export function stepForSchedule(scheduledAt: number, ingestionLag: string, stepSeconds: number): number {
  const stepMs = stepSeconds * 1000;
  return Math.floor(scheduledAt / stepMs) * stepMs - durationMs(ingestionLag) - stepMs;
}
