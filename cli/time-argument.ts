import { durationMs, isDuration } from '../shared/engine/duration.ts';
import { isIsoUtc } from '../shared/time.ts';

import { UsageError } from './command.ts';

/** What `--from` and `--to` accept, as the help and the errors say it. */
export const TIME_FORMATS =
  'T is an ISO-8601 UTC time (2026-11-20T09:00:00Z), "now", or a time ago written with "=": --from=-3d (s, m, h or d)';

/** `--from`/`--to`: an ISO-8601 UTC time, `now`, or a time ago such as `--from=-3d` (with `=`, or it reads as a flag). */
export function parseTimeArgument(name: string, text: string | undefined, now: number): number {
  if (text === undefined) throw new UsageError(`--${name} is required`);
  if (text === 'now') return now;
  if (text.startsWith('-') && isDuration(text.slice(1))) return now - durationMs(text.slice(1));
  if (isIsoUtc(text)) return Date.parse(text);
  throw new UsageError(
    `--${name} "${text}": expected an ISO-8601 UTC time (2026-11-20T09:00:00Z), "now", or a time ago like --${name}=-3d`,
  );
}

/** Align a time down to the step, since CloudWatch one-minute samples start on the minute. */
export function alignToStep(time: number, stepSeconds: number): number {
  return Math.floor(time / (stepSeconds * 1000)) * stepSeconds * 1000;
}
