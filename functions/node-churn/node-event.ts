import type { Logger } from '@aws-lambda-powertools/logger';
import { EventBridgeSchema } from '@aws-lambda-powertools/parser/schemas/eventbridge';
import * as z from 'zod';
import {
  type InstanceObservation,
  type NodeEventDependencies,
  type NodeEventResult,
  recordNodeEvent,
} from '../../shared/churn/node-churn.ts';
import { type NodeClusters, reasonOfCause } from '../../shared/churn/node-termination.ts';
import { eventTime } from '../../shared/pipeline/event-time.ts';

/**
 * The node events, whole (the envelope's `account`, `region`, `time` and `id` are part of what they say, so Parser's
 * EventBridge envelope, which hands over the `detail` alone, is not used). Shapes as AWS documents them:
 * - Auto Scaling: https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-event-reference.html
 *   (`EC2 Instance-terminate Lifecycle Action`, `EC2 Instance Terminate Successful`);
 * - EC2 state changes: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/monitoring-instance-state-changes.html;
 * - spot interruption warnings: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html;
 * - rebalance recommendations: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/rebalance-recommendations.html.
 */
const event = <Type extends string, Detail extends z.ZodType>(detailType: Type, detail: Detail) =>
  EventBridgeSchema.extend({ 'detail-type': z.literal(detailType), detail });

export const nodeEventSchema = z.discriminatedUnion('detail-type', [
  event(
    'EC2 Instance-terminate Lifecycle Action',
    z.object({ AutoScalingGroupName: z.string(), EC2InstanceId: z.string() }),
  ),
  event(
    'EC2 Instance Terminate Successful',
    z.object({
      AutoScalingGroupName: z.string(),
      EC2InstanceId: z.string(),
      StartTime: z.string(),
      Cause: z.string().default(''),
    }),
  ),
  event(
    'EC2 Instance State-change Notification',
    z.object({
      'instance-id': z.string(),
      state: z.enum(['pending', 'running', 'stopping', 'stopped', 'shutting-down', 'terminated']),
    }),
  ),
  event(
    'EC2 Spot Instance Interruption Warning',
    z.object({ 'instance-id': z.string(), 'instance-action': z.string() }),
  ),
  event('EC2 Instance Rebalance Recommendation', z.object({ 'instance-id': z.string() })),
]);
export type NodeEvent = z.infer<typeof nodeEventSchema>;

export interface NodeEventReport extends NodeEventResult {
  readonly event: string;
  readonly instanceId: string;
}

/** What an event says of its instance; undefined for a state change that neither starts nor ends a node. */
export function observationOf(
  e: NodeEvent,
  clusters: Pick<NodeClusters, 'ofGroup'>,
  now: number,
): InstanceObservation | undefined {
  const time = eventTime('$.time', e.time, now);
  const base = { account: e.account, region: e.region };
  switch (e['detail-type']) {
    case 'EC2 Instance-terminate Lifecycle Action': {
      const cluster = clusters.ofGroup(e.detail.AutoScalingGroupName, e.account, e.region);
      return { ...base, instanceId: e.detail.EC2InstanceId, terminatingAt: time, ...(cluster && { cluster }) };
    }
    case 'EC2 Instance Terminate Successful': {
      const cluster = clusters.ofGroup(e.detail.AutoScalingGroupName, e.account, e.region);
      const reason = reasonOfCause(e.detail.Cause);
      return {
        ...base,
        instanceId: e.detail.EC2InstanceId,
        // The activity began when the instance began to drain: the same minute its lifecycle action counts in.
        terminatingAt: eventTime('$.detail.StartTime', e.detail.StartTime, now),
        ...(cluster && { cluster }),
        ...(reason !== 'unspecified' && { reason, reasonAt: time }),
      };
    }
    case 'EC2 Instance State-change Notification': {
      const instanceId = e.detail['instance-id'];
      if (e.detail.state === 'running') return { ...base, instanceId, running: true };
      if (e.detail.state === 'shutting-down' || e.detail.state === 'terminated') {
        return { ...base, instanceId, terminatingAt: time };
      }
      return undefined;
    }
    case 'EC2 Spot Instance Interruption Warning':
      return { ...base, instanceId: e.detail['instance-id'], reason: 'spot-interruption', reasonAt: time };
    case 'EC2 Instance Rebalance Recommendation':
      return { ...base, instanceId: e.detail['instance-id'], reason: 'rebalance', reasonAt: time };
  }
}

/**
 * Count a node event in its cluster's churn. A termination whose instance cannot be placed in a cluster (no event
 * named its cluster, its `running` event recorded nothing, and EC2 no longer describes it) is lost to the count, and
 * logged with what was lost.
 */
export async function handleNodeEvent(
  deps: NodeEventDependencies & {
    readonly logger: Pick<Logger, 'warn'>;
  },
  e: NodeEvent,
): Promise<NodeEventReport | undefined> {
  const observation = observationOf(e, deps.clusters, deps.now());
  if (!observation) return undefined;
  const result = await recordNodeEvent(deps, observation);
  if (result.outcome === 'unplaced' && observation.terminatingAt !== undefined) {
    deps.logger.warn('a terminating instance could not be placed in a cluster; its termination is not counted', {
      event: e.id,
      detailType: e['detail-type'],
      instanceId: observation.instanceId,
      account: e.account,
      region: e.region,
    });
  }
  return { event: e['detail-type'], instanceId: observation.instanceId, ...result };
}
