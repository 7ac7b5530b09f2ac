import { previousWeek, WeekError, weekContaining, weekEndedBefore, weekOf } from '../../shared/digest/iso-week.ts';
import { startOfLocalDay } from '../../shared/digest/zoned-time.ts';

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('ISO weeks in a time zone', () => {
  it('runs from Monday 00:00 to the next Monday 00:00 in UTC', () => {
    const week = weekOf('2019-W10', 'UTC');

    expect([iso(week.from), iso(week.to)]).toEqual(['2019-03-04T00:00:00.000Z', '2019-03-11T00:00:00.000Z']);
  });

  it('starts at local midnight, which is the evening before in UTC east of Greenwich', () => {
    const week = weekOf('2026-W07', 'Europe/Berlin');

    expect([iso(week.from), iso(week.to)]).toEqual(['2026-02-08T23:00:00.000Z', '2026-02-15T23:00:00.000Z']);
  });

  it('lasts 169 hours in Berlin in the week whose Sunday turns the clocks back in October', () => {
    const week = weekOf('2026-W43', 'Europe/Berlin');

    expect([iso(week.from), iso(week.to), (week.to - week.from) / HOUR]).toEqual([
      '2026-10-18T22:00:00.000Z',
      '2026-10-25T23:00:00.000Z',
      169,
    ]);
  });

  it('lasts 167 hours in Berlin in the week whose Sunday turns the clocks forward in March', () => {
    const week = weekOf('2026-W13', 'Europe/Berlin');

    expect((week.to - week.from) / HOUR).toBe(167);
  });

  it('puts the hour repeated on the last Sunday of October into that week', () => {
    // 02:30 local happens twice on 2026-10-25: at 00:30Z (summer time) and at 01:30Z (winter time).
    const labels = ['2026-10-25T00:30:00Z', '2026-10-25T01:30:00Z', '2026-10-25T22:59:59Z'].map(
      (time) => weekContaining(Date.parse(time), 'Europe/Berlin').label,
    );

    expect(labels).toEqual(['2026-W43', '2026-W43', '2026-W43']);
  });

  it('moves Sunday 23:30 UTC into the next week in Berlin, where it is already Monday', () => {
    const instant = Date.parse('2026-10-25T23:30:00Z');

    expect([weekContaining(instant, 'UTC').label, weekContaining(instant, 'Europe/Berlin').label]).toEqual([
      '2026-W43',
      '2026-W44',
    ]);
  });

  it('gives the days around New Year to the ISO year their Thursday falls in', () => {
    const labels = ['2019-12-30T12:00:00Z', '2021-01-03T12:00:00Z', '2021-01-04T12:00:00Z'].map(
      (time) => weekContaining(Date.parse(time), 'UTC').label,
    );

    expect(labels).toEqual(['2020-W01', '2020-W53', '2021-W01']);
  });

  it('steps back to the week before across a year boundary and a DST change', () => {
    expect([
      previousWeek(weekOf('2021-W01', 'UTC')).label,
      previousWeek(weekOf('2026-W44', 'Europe/Berlin')).label,
    ]).toEqual(['2020-W53', '2026-W43']);
  });

  it('reports on the week that just ended when the digest runs on Monday morning local time', () => {
    // Monday 2026-10-26 09:00 in Berlin is 08:00Z, after the clocks went back.
    const week = weekEndedBefore(Date.parse('2026-10-26T08:00:00Z'), 'Europe/Berlin');

    expect([week.label, iso(week.from), iso(week.to)]).toEqual([
      '2026-W43',
      '2026-10-18T22:00:00.000Z',
      '2026-10-25T23:00:00.000Z',
    ]);
  });

  it('reports on the last whole week when the digest runs later in the week', () => {
    expect(weekEndedBefore(Date.parse('2019-03-08T17:00:00Z'), 'UTC').label).toBe('2019-W09');
  });

  it('starts a day at the moment the clocks jump when DST skips its midnight', () => {
    // Chile moved from UTC-4 to UTC-3 at 2024-09-08 00:00 local: that day began at 01:00 local, 04:00Z.
    expect(iso(startOfLocalDay({ year: 2024, month: 9, day: 8 }, 'America/Santiago'))).toBe('2024-09-08T04:00:00.000Z');
  });

  it.each([
    ['2026-7', 'expected YYYY-Www'],
    ['2026-W54', '2026 has weeks 01 to 53'],
    ['2019-W53', '2019 has weeks 01 to 52'],
    ['2026-W00', '2026 has weeks 01 to 53'],
  ])('rejects %s with a message that says what a week looks like', (label, message) => {
    expect(() => weekOf(label, 'UTC')).toThrow(WeekError);
    expect(() => weekOf(label, 'UTC')).toThrow(message);
  });
});
