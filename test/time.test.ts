import { durationMs } from '../shared/engine/duration.ts';
import { DAY_MS, durationText, formatMinutes, HOUR_MS, MINUTE_MS, roughDuration, WEEK_MS } from '../shared/time.ts';

describe('lengths of time in words', () => {
  it.each([
    [0, '0 min'],
    [59 * MINUTE_MS, '59 min'],
    [60 * MINUTE_MS, '1 h'],
    [125 * MINUTE_MS, '2 h 5 min'],
    [DAY_MS + 30_000, '24 h 1 min'],
  ])('gives %d ms to the minute as %s', (ms, text) => {
    expect(formatMinutes(ms)).toBe(text);
  });

  it.each([
    [MINUTE_MS, '1 minute'],
    [119 * MINUTE_MS, '119 minutes'],
    [2 * HOUR_MS, '2 hours'],
    [71 * HOUR_MS, '71 hours'],
    [3 * DAY_MS, '3 days'],
    [729 * DAY_MS, '729 days'],
    [3 * 365 * DAY_MS, '3 years'],
  ])('rounds %d ms to its largest sensible unit, %s', (ms, text) => {
    expect(roughDuration(ms)).toBe(text);
  });

  it.each(['2d', '4h', '15m', '90s', '7d'])('writes %s back as the configuration wrote it', (text) => {
    expect(durationText(durationMs(text))).toBe(text);
  });

  it('makes a week of seven days', () => {
    expect(WEEK_MS).toBe(7 * 24 * 60 * 60 * 1000);
  });
});
