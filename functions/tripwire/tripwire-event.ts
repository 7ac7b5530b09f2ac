import { z } from 'zod';
import type { TripwireRecorder } from '../../aws/dynamodb-tripwires.ts';
import { tripwireClusterOf } from '../../shared/pipeline/alarm-names.ts';

/** The EventBridge event CloudWatch sends when a tripwire alarm changes state. */
export const alarmEventSchema = z.object({
  source: z.literal('aws.cloudwatch'),
  'detail-type': z.literal('CloudWatch Alarm State Change'),
  detail: z.object({
    alarmName: z.string(),
    state: z.object({ value: z.enum(['OK', 'ALARM', 'INSUFFICIENT_DATA']), timestamp: z.string() }),
  }),
});
export type AlarmEvent = z.infer<typeof alarmEventSchema>;

/** Arm or disarm a cluster's minute-by-minute polling from its alarm's new state; alarms of others are ignored. */
export async function recordTripwire(
  deps: { tripwires: TripwireRecorder; deployment: string; clusters: ReadonlySet<string> },
  event: AlarmEvent,
): Promise<{ cluster?: string; state: string }> {
  const cluster = tripwireClusterOf(deps.deployment, event.detail.alarmName);
  const state = event.detail.state.value;
  if (cluster === undefined || !deps.clusters.has(cluster)) return { state };
  await deps.tripwires.record(cluster, state, Date.parse(event.detail.state.timestamp));
  return { cluster, state };
}
