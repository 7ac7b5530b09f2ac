/**
 * The handlers read `Date.now`, as they do in Lambda, and check every event's time against it. A wire test replays a
 * scenario from years ago minute by minute, so it sets the clock to when each event would arrive. Installed when this
 * module loads, before any handler is imported, so that a handler's `now: Date.now` is this clock.
 */
const wallClock = Date.now;
let arrival: { readonly at: number; readonly since: number } | undefined;
// Within an invocation the clock runs in real time, so that leases and durations are real.
Date.now = () => (arrival ? Math.round(arrival.at + (performance.now() - arrival.since)) : wallClock());

/** From now on the handlers' clock reads `time`, and runs on from there: when the next event arrives. */
export function arriveAt(time: number): void {
  arrival = { at: time, since: performance.now() };
}
