import { atMost, STORE_REQUESTS_IN_FLIGHT } from '../at-most.ts';
import type { TripwireAlarms, TripwireRecorder } from './ports.ts';
import type { WatchPlan } from './watch-plan.ts';

/** Where the recorded tripwire states are refreshed from: the alarms as CloudWatch holds them, and the recorder. */
export interface TripwireRefresh {
  readonly alarms: TripwireAlarms;
  readonly recorder: TripwireRecorder;
}

/**
 * Whether step `at` opens a slow cycle, when the recorded tripwire states are read back from CloudWatch: once a cycle
 * is often enough to keep a state recorded well inside its day-long expiry, and a lost OK costs one cycle and a minute
 * of minute reads at most (the refresh applies from the step after the one it runs beside).
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
  const outcomes = await atMost(states, STORE_REQUESTS_IN_FLIGHT, (alarm) =>
    refresh.recorder.record(alarm.cluster, alarm.state, alarm.changedAt, now),
  );
  return outcomes.filter((outcome) => outcome === 'recorded').length;
}
