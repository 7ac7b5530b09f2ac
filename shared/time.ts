/** Time as the project reckons it: instants as ISO-8601 UTC, lengths of time, and how both read in words. */

/** ISO-8601 UTC to the second, as scenario files and notifications write times. */
export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?Z$/;

/** An ISO-8601 UTC time that names a real instant: 2019-02-30 or 24:00 are refused, not rolled over. */
export function isIsoUtc(text: string): boolean {
  const match = ISO_UTC.exec(text);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
  const time = new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, day, hour, minute, second));
  return (
    time.getUTCFullYear() === year &&
    time.getUTCMonth() + 1 === month &&
    time.getUTCDate() === day &&
    time.getUTCHours() === hour &&
    time.getUTCMinutes() === minute &&
    time.getUTCSeconds() === second
  );
}

/** Lengths of time in milliseconds, for arithmetic on instants. */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
export const WEEK_MS = 7 * DAY_MS;
/** A day in seconds, as DynamoDB's TTL attribute counts. */
export const DAY_S = DAY_MS / 1000;

/** An exact length to the minute, as a notification or the digest says how long something was open: "2 h 5 min". */
export function formatMinutes(ms: number): string {
  const minutes = Math.round(ms / MINUTE_MS);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}

/** A length in its largest sensible unit, rounded, for how old or how far off something is: "3 days". */
export function roughDuration(ms: number): string {
  const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? '' : 's'}`;
  const minutes = Math.round(ms / MINUTE_MS);
  if (minutes < 120) return plural(minutes, 'minute');
  const hours = Math.round(ms / HOUR_MS);
  if (hours < 72) return plural(hours, 'hour');
  const days = Math.round(ms / DAY_MS);
  return days < 730 ? plural(days, 'day') : plural(Math.round(days / 365), 'year');
}

/** A whole number of days, hours or minutes as the configuration writes a duration (`2d`, `4h`, `15m`), else seconds. */
export function durationText(ms: number): string {
  for (const [unit, size] of [
    ['d', DAY_MS],
    ['h', HOUR_MS],
    ['m', MINUTE_MS],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms / 1000}s`;
}
