import { SentinelError } from '../errors.ts';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86400 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(s|m|h|d)$/;

export class DurationError extends SentinelError {}

/** A duration written as `90s`, `15m`, `4h` or `2d`. */
export type Duration = string;

export function isDuration(text: string): boolean {
  return DURATION.test(text);
}

export function durationSeconds(text: Duration): number {
  const match = DURATION.exec(text);
  if (!match?.[1] || !match[2]) {
    throw new DurationError(`"${text}" is not a duration: expected a number and a unit, like 90s, 15m, 4h or 2d`);
  }
  return Number(match[1]) * UNIT_SECONDS[match[2] as keyof typeof UNIT_SECONDS];
}

export function durationMs(text: Duration): number {
  return durationSeconds(text) * 1000;
}

/** How many samples of `stepSeconds` a duration covers, at least one. */
export function durationSamples(text: Duration, stepSeconds: number): number {
  return Math.max(1, Math.round(durationSeconds(text) / stepSeconds));
}
