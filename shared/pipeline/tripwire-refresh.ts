import { atMost } from '../at-most.ts';
import type { TripwireAlarms, TripwireRecorder } from './ports.ts';
import type { WatchPlan } from './watch-plan.ts';

/** Where the recorded tripwire states are refreshed from: the alarms as CloudWatch holds them, and the recorder. */
export interface TripwireRefresh {
  readonly alarms: TripwireAlarms;
  readonly recorder: TripwireRecorder;
}

/**
 * States recorded at once. Each is a write to the store, and a fleet of 10,000 clusters has as many alarms: recorded
 * all at once, the poll held 10,000 requests in memory together, once every slow cycle.
 */
export const RECORDS_IN_FLIGHT = 32;

/**
 * Whether step `at` opens a slow cycle, when the recorded tripwire states are read back from CloudWatch: once a cycle
 * is often enough to keep a state recorded well inside its day-long expiry, and a lost OK costs one cycle of minute
 * reads at most.
 */
export function refreshesTripwires(plan: WatchPlan, at: number): boolean {
  if (plan.cadence.tripwire === undefined) return false;
  return Math.round(at / (plan.stepSeconds * 1000)) % plan.cadence.everySteps === 0;
}

/**
 * Records every tripwire alarm of a watched cluster again, as CloudWatch holds it now: an alarm still in ALARM is
 * kept from expiring, and one that went OK while its event was lost is disarmed. A state change recorded from a newer
 * event stays (the recorder's rule). Returns how many states were recorded.
 */
export async function refreshTripwires(
  refresh: TripwireRefresh,
  clusters: ReadonlySet<string>,
  now: number,
): Promise<number> {
  const states = (await refresh.alarms.states()).filter((alarm) => clusters.has(alarm.cluster));
  const outcomes = await atMost(states, RECORDS_IN_FLIGHT, (alarm) =>
    refresh.recorder.record(alarm.cluster, alarm.state, alarm.changedAt, now),
  );
  return outcomes.filter((outcome) => outcome === 'recorded').length;
}
