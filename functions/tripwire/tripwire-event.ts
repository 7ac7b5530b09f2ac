import { z } from 'zod';
import { tripwireClusterOf } from '../../shared/pipeline/alarm-names.ts';
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
}

/** Arm or disarm a cluster's minute-by-minute polling from its alarm's new state; alarms of others are ignored. */
export async function recordTripwire(
  deps: { tripwires: TripwireRecorder; deployment: string; clusters: ReadonlySet<string> },
  change: AlarmStateChange,
): Promise<TripwireOutcome> {
  const cluster = tripwireClusterOf(deps.deployment, change.alarmName);
  const state = change.state.value;
  if (cluster === undefined || !deps.clusters.has(cluster)) return { state };
  await deps.tripwires.record(cluster, state, Date.parse(change.state.timestamp));
  return { cluster, state };
}
