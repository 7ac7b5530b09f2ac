import { DAY_MS } from '../time.ts';

/** A calendar day, with no time zone: what a wall calendar shows. */
export interface CivilDate {
  readonly year: number;
  /** 1 to 12. */
  readonly month: number;
  readonly day: number;
}

/** An instant as the wall clock of one time zone reads it. */
export interface LocalTime extends CivilDate {
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

export function localTime(instant: number, timeZone: string): LocalTime {
  const parts = Object.fromEntries(
    formatterFor(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, Number(part.value)]),
  ) as Record<Intl.DateTimeFormatPartTypes, number>;
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour,
    minute: parts.minute,
    second: parts.second,
  };
}

/** The date as a UTC timestamp at midnight: calendar arithmetic only, no time zone involved. */
export function civilDays(date: CivilDate): number {
  return Date.UTC(date.year, date.month - 1, date.day);
}

function civilDate(utcMidnight: number): CivilDate {
  const date = new Date(utcMidnight);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

export function addDays(date: CivilDate, days: number): CivilDate {
  return civilDate(civilDays(date) + days * DAY_MS);
}

/** How far the zone's wall clock is ahead of UTC at an instant. */
function offsetMs(instant: number, timeZone: string): number {
  const local = localTime(instant, timeZone);
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  return wall - Math.floor(instant / 1000) * 1000;
}

const sameDay = (a: CivilDate, b: CivilDate) => a.year === b.year && a.month === b.month && a.day === b.day;

/**
 * The first instant of a day in a time zone. Usually local midnight; where a DST change skips midnight (as Chile's
 * does), the moment the clocks jump. Both offsets around the day are tried, so a change on that day is handled.
 */
export function startOfLocalDay(date: CivilDate, timeZone: string): number {
  const wall = civilDays(date);
  const candidates = [...new Set([DAY_MS, -DAY_MS].map((shift) => wall - offsetMs(wall + shift, timeZone)))].sort(
    (a, b) => a - b,
  );
  const start = candidates.find((instant) => sameDay(localTime(instant, timeZone), date));
  if (start === undefined) throw new Error(`no instant of ${formatCivil(date)} found in ${timeZone}`);
  return start;
}

const two = (value: number) => String(value).padStart(2, '0');

export function formatCivil(date: CivilDate): string {
  return `${date.year}-${two(date.month)}-${two(date.day)}`;
}

/** `2019-03-04 10:31` on the zone's wall clock. */
export function formatLocal(instant: number, timeZone: string): string {
  const local = localTime(instant, timeZone);
  return `${formatCivil(local)} ${two(local.hour)}:${two(local.minute)}`;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

export function weekdayOf(date: CivilDate): string {
  return WEEKDAYS[new Date(civilDays(date)).getUTCDay()] ?? '';
}
