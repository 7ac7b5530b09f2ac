import { SentinelError } from '../errors.ts';
import { WEEK_MS } from '../time.ts';
import { addDays, type CivilDate, civilDays, localTime, startOfLocalDay } from './zoned-time.ts';

/** An ISO week on a team's wall clock: from Monday 00:00 local to the next Monday 00:00 local, `to` excluded. */
export interface DigestWeek {
  /** `2026-W07`. */
  readonly label: string;
  readonly timeZone: string;
  readonly from: number;
  readonly to: number;
}

/** A week label that is not an ISO week. */
export class WeekError extends SentinelError {}

const WEEK_LABEL = /^(\d{4})-W(\d{2})$/;

/** Monday 0 to Sunday 6. */
function isoWeekday(date: CivilDate): number {
  return (new Date(civilDays(date)).getUTCDay() + 6) % 7;
}

function isoWeekOf(date: CivilDate): { year: number; week: number } {
  // The ISO week belongs to the year its Thursday falls in.
  const thursday = addDays(date, 3 - isoWeekday(date));
  const january1 = civilDays({ year: thursday.year, month: 1, day: 1 });
  return { year: thursday.year, week: 1 + Math.floor((civilDays(thursday) - january1) / WEEK_MS) };
}

function mondayOf(year: number, week: number): CivilDate {
  // Week 1 is the week with January 4th in it.
  const january4 = { year, month: 1, day: 4 };
  return addDays(january4, (week - 1) * 7 - isoWeekday(january4));
}

function labelOf(year: number, week: number): string {
  return `${year}-W${String(week).padStart(2, '0')}`;
}

function weekFromMonday(monday: CivilDate, timeZone: string): DigestWeek {
  const { year, week } = isoWeekOf(monday);
  return {
    label: labelOf(year, week),
    timeZone,
    from: startOfLocalDay(monday, timeZone),
    to: startOfLocalDay(addDays(monday, 7), timeZone),
  };
}

/** The week a label such as `2026-W07` names, in a time zone; a WeekError says what is wrong with a bad label. */
export function weekOf(label: string, timeZone: string): DigestWeek {
  const match = WEEK_LABEL.exec(label);
  if (!match) throw new WeekError(`"${label}" is not an ISO week: expected YYYY-Www, like 2026-W07`);
  const year = Number(match[1]);
  const week = Number(match[2]);
  const weeks = isoWeekOf({ year, month: 12, day: 28 }).week;
  if (week < 1 || week > weeks) throw new WeekError(`"${label}" is not an ISO week: ${year} has weeks 01 to ${weeks}`);
  return weekFromMonday(mondayOf(year, week), timeZone);
}

/** The week an instant falls in, on the zone's wall clock. */
export function weekContaining(instant: number, timeZone: string): DigestWeek {
  const today = localTime(instant, timeZone);
  return weekFromMonday(addDays(today, -isoWeekday(today)), timeZone);
}

export function previousWeek(week: DigestWeek): DigestWeek {
  return weekFromMonday(addDays(localTime(week.from, week.timeZone), -7), week.timeZone);
}

/** The last whole week before an instant: what a digest scheduled at that instant reports on. */
export function weekEndedBefore(instant: number, timeZone: string): DigestWeek {
  return previousWeek(weekContaining(instant, timeZone));
}
