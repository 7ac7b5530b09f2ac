import type { Logger } from '@aws-lambda-powertools/logger';
import * as z from 'zod';
import { tripwireClusterOf } from '../../shared/pipeline/alarm-names.ts';
import { eventTime } from '../../shared/pipeline/event-time.ts';
import type { TripwireRecorder } from '../../shared/pipeline/ports.ts';

/**
 * The `detail` of the EventBridge event CloudWatch sends when a tripwire alarm changes state; Parser's EventBridge
 * envelope checks the rest. Its source and detail type are the rule's event pattern, so no other event reaches here.
 */
export const alarmStateChangeSchema = z.object({
  alarmName: z.string(),
  state: z.object({ value: z.enum(['OK', 'ALARM', 'INSUFFICIENT_DATA']), timestamp: z.string() }),
});
export type AlarmStateChange = z.infer<typeof alarmStateChangeSchema>;

export interface TripwireOutcome {
  readonly cluster?: string;
  readonly state: string;
  /** Whether the state was kept, or a newer state change was already recorded. */
  readonly outcome?: 'recorded' | 'superseded';
}

/** Arm or disarm a cluster's minute-by-minute polling from its alarm's new state; alarms of others are ignored. */
export async function recordTripwire(
  deps: {
    tripwires: TripwireRecorder;
    deployment: string;
    clusters: ReadonlySet<string>;
    now: () => number;
    logger: Pick<Logger, 'warn'>;
  },
  change: AlarmStateChange,
): Promise<TripwireOutcome> {
  const cluster = tripwireClusterOf(deps.deployment, change.alarmName);
  const state = change.state.value;
  if (cluster === undefined || !deps.clusters.has(cluster)) return { state };
  const now = deps.now();
  // A state change dated in the future would win over every real one after it and hold the tripwire still.
  const changedAt = eventTime('$.detail.state.timestamp', change.state.timestamp, now);
  const outcome = await deps.tripwires.record(cluster, state, changedAt, now);
  // Out-of-order delivery is normal for EventBridge, but never silent: this event changed nothing.
  if (outcome === 'superseded')
    deps.logger.warn('a newer tripwire state is recorded; this change is ignored', {
      cluster,
      state,
      changedAt: change.state.timestamp,
    });
  return { cluster, state, outcome };
}
