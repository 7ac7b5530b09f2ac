import { arriveAt, monotonicFollowsArrivals } from '../support/handler-clock.ts';

const MINUTE_MS = 60_000;
const T = Date.parse('2019-03-04T09:00:03Z');

describe("the handlers' clock of the wire tests", () => {
  it('runs in real time from an arrival, and leaves the monotonic clock alone until told', () => {
    const monotonic = performance.now();
    arriveAt(T);
    arriveAt(T + 10 * MINUTE_MS);

    expect(Date.now() - (T + 10 * MINUTE_MS)).toBeLessThan(1_000);
    expect(performance.now() - monotonic).toBeLessThan(1_000);
  });

  it('moves the monotonic clock on with each arrival that moves the handlers forward, and never back', () => {
    monotonicFollowsArrivals();
    arriveAt(T);
    const before = performance.now();
    arriveAt(T + MINUTE_MS);
    const aMinuteOn = performance.now();
    // A retry of an earlier step arrives before the clock's reading: the monotonic clock stays where it is.
    arriveAt(T + 30_000);
    const afterRetry = performance.now();
    arriveAt(T + 2 * MINUTE_MS);

    expect(aMinuteOn - before).toBeGreaterThanOrEqual(MINUTE_MS - 1_000);
    expect(aMinuteOn - before).toBeLessThan(MINUTE_MS + 1_000);
    expect(afterRetry - aMinuteOn).toBeLessThan(1_000);
    // From the retry's arrival to the next: a minute and a half.
    expect(performance.now() - afterRetry).toBeGreaterThanOrEqual(1.5 * MINUTE_MS - 1_000);
    expect(Date.now() - (T + 2 * MINUTE_MS)).toBeLessThan(1_000);
    // The rest of `performance` is the process's.
    expect(performance.timeOrigin).toBeGreaterThan(0);
  });
});
