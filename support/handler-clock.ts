/**
 * The handlers read `Date.now`, as they do in Lambda, and check every event's time against it. A wire test replays a
 * scenario from years ago minute by minute, so it sets the clock to when each event would arrive. Installed when this
 * module loads, before any handler is imported, so that a handler's `now: Date.now` is this clock.
 */
const wallClock = Date.now;
/** This test file's `performance`, whose `now` is the process's monotonic clock. */
const processPerformance = globalThis.performance;
/** How far arrivals have moved the monotonic clock on (only once `monotonicFollowsArrivals` is called). */
let movedOnMs = 0;
let following = false;
const monotonicNow = () => processPerformance.now() + movedOnMs;
let arrival: { readonly at: number; readonly since: number } | undefined;
// Within an invocation the clock runs in real time, so that leases and durations are real.
Date.now = () => (arrival ? Math.round(arrival.at + (monotonicNow() - arrival.since)) : wallClock());

/** From now on the handlers' clock reads `time`, and runs on from there: when the next event arrives. */
export function arriveAt(time: number): void {
  if (following && arrival) movedOnMs += Math.max(0, time - Date.now());
  arrival = { at: time, since: monotonicNow() };
}

/**
 * From now on, in this test file, the monotonic clock (`performance.now`) moves on with the handlers' clock whenever
 * an arrival moves that forward: the minutes between two scheduled polls pass for what paces calls by it (the
 * functions' quota pacers, aws/concurrency.ts and aws/dynamodb/partition-pacing.ts) and for what counts quotas by it
 * (the loopback fakes' meters) as they pass in Lambda. Without it a replay puts hundreds of polls into a few real
 * seconds, and the poller's share of DescribeAlarms (8 calls a second) holds every ninth poll for most of a second,
 * which is most of a long replay's time. An arrival at or before the clock's reading (a retry, an earlier step)
 * leaves the monotonic clock where it is: it never goes back. Time within an invocation stays real.
 *
 * Only the `performance` global of this test file's context is replaced (by a view whose `now` is moved on); the
 * worker's own is left as it is, so that the next test file in the worker starts from the real clock.
 */
export function monotonicFollowsArrivals(): void {
  if (following) return;
  following = true;
  globalThis.performance = new Proxy(processPerformance, {
    get: (target, key) => {
      if (key === 'now') return monotonicNow;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
