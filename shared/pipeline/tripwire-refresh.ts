import { atMost, STORE_REQUESTS_IN_FLIGHT } from '../at-most.ts';
import type { RecordedTripwireState, TripwireAlarms, TripwireRecorder } from './ports.ts';
import { tripwireNeedsWriting } from './tripwire-state.ts';
import type { WatchPlan } from './watch-plan.ts';

/** Where the recorded tripwire states are refreshed from: the alarms as CloudWatch holds them, and the recorder. */
export interface TripwireRefresh {
  readonly alarms: TripwireAlarms;
  readonly recorder: TripwireRecorder;
}

/** What the poll knows when it refreshes: the watched clusters, what the table held of their states, the cycle. */
export interface RefreshScope {
  readonly clusters: ReadonlySet<string>;
  /** The states the poll read with its armed clusters; absent when its store does not say, and every state is written. */
  readonly recorded?: ReadonlyMap<string, RecordedTripwireState>;
  /** How long a slow cycle is, from one refresh to the next (ms). */
  readonly cycleMs: number;
}

/** What a refresh did: states read back from CloudWatch for watched clusters, puts sent, and puts the recorder kept. */
export interface RefreshOutcome {
  readonly states: number;
  readonly written: number;
  readonly recorded: number;
}

/** How long the slow cycle of `plan` is: the time from one refresh to the next. */
export function refreshCycleMs(plan: WatchPlan): number {
  return plan.cadence.everySteps * plan.stepSeconds * 1000;
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
 * Brings the recorded tripwire states of the watched clusters in line with CloudWatch's: a state that differs from
 * the recorded one is written (one that went OK while its event was lost is disarmed, one whose ALARM was never
 * recorded arms), and so is an unchanged one that would expire before a later refresh could renew it (an alarm still
 * in ALARM stays armed). Every other state is left as recorded (tripwireNeedsWriting): a fleet's alarms seldom
 * change, so most slow cycles write a few states rather than one a cluster. A state change recorded from a newer
 * event stays (the recorder's rule).
 */
export async function refreshTripwires(
  refresh: TripwireRefresh,
  scope: RefreshScope,
  now: number,
): Promise<RefreshOutcome> {
  const states = (await refresh.alarms.states()).filter((alarm) => scope.clusters.has(alarm.cluster));
  // Without the recorded states every state is written: none can be compared or known to be live.
  const due = states.filter((alarm) =>
    tripwireNeedsWriting(alarm, scope.recorded?.get(alarm.cluster), now, scope.cycleMs),
  );
  const outcomes = await atMost(due, STORE_REQUESTS_IN_FLIGHT, (alarm) =>
    refresh.recorder.record(alarm.cluster, alarm.state, alarm.changedAt, now),
  );
  return {
    states: states.length,
    written: due.length,
    recorded: outcomes.filter((outcome) => outcome === 'recorded').length,
  };
}
