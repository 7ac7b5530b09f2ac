import { clusterFinder, displayNameOf } from '../config/cluster-identity.ts';
import type { ClusterConfig } from '../config/deployment-config.ts';
import type { SeriesBySignal } from '../engine/signal-window.ts';
import type { SignalName } from '../engine/signals.ts';

/**
 * Why a node was terminated, as far as the event that reports it says. EKS node auto repair publishes no event or
 * metric of its own (aws/containers-roadmap#1420), so a repair shows only as an instance an Auto Scaling group took
 * out of service as unhealthy, or, for Karpenter and EKS Auto Mode, as an EC2 instance that shut down with no spot
 * interruption before it: `unspecified`.
 */
export const TERMINATION_REASONS = [
  'unhealthy',
  'spot-interruption',
  'rebalance',
  'scale-in',
  'refresh',
  'unspecified',
] as const;
export type TerminationReason = (typeof TERMINATION_REASONS)[number];

/**
 * The signals a termination counts in. Every termination counts once in `nodes.replaced`; spot interruptions and
 * rebalance recommendations (EC2 took the capacity back) and scale-ins (fewer nodes wanted) count in their own
 * signal too, so that a rule can take them out of what could be a repair.
 */
export function signalsOf(reason: TerminationReason): readonly SignalName[] {
  switch (reason) {
    case 'spot-interruption':
    case 'rebalance':
      return ['nodes.replaced', 'nodes.interrupted'];
    case 'scale-in':
      return ['nodes.replaced', 'nodes.scaledin'];
    default:
      return ['nodes.replaced'];
  }
}

/** A termination no event names as a spot interruption, a rebalance or a scale-in: it could be a repair. */
export function couldBeRepair(reason: TerminationReason): boolean {
  return signalsOf(reason).length === 1;
}

/**
 * Possible repairs close together arm minute-by-minute polling of their cluster: `REPAIRS_THAT_ARM` of them within
 * `REPAIR_ARMS_POLLING_MS` (node-repair-storm's window) arm it until that long after the last one. The tripwire alarm
 * watches the apiserver only, and a repair loop under a control plane that is slow but not failing would otherwise
 * wait for the slow cycle. Arming starts when node-repair-storm could first fire: its `minReplaced` (3 by default) is
 * the fewest possible repairs it counts, so minute reads before the third would be paid for nothing, and a replacement
 * or two, as routine consolidation brings, arm nothing.
 */
export const REPAIR_ARMS_POLLING_MS = 30 * 60_000;
export const REPAIRS_THAT_ARM = 3;

/** Until when possible repairs at these times (ms) arm polling, or undefined when they do not. */
export function repairsArmUntil(repairTimes: readonly number[]): number | undefined {
  const sorted = [...repairTimes].sort((x, y) => x - y);
  const last = sorted.at(-1);
  if (last === undefined) return undefined;
  const recent = sorted.filter((t) => t > last - REPAIR_ARMS_POLLING_MS);
  return recent.length >= REPAIRS_THAT_ARM ? last + REPAIR_ARMS_POLLING_MS : undefined;
}

/** The churn signals the counts fill, in the order `signalsOf` may name them. */
export const CHURN_SIGNALS = ['nodes.replaced', 'nodes.interrupted', 'nodes.scaledin'] as const satisfies SignalName[];

/**
 * The reason in the `Cause` text of an Auto Scaling activity (the `EC2 Instance Terminate Successful` event carries
 * it). The phrases are those the Amazon EC2 Auto Scaling User Guide shows for its activities: health checks ("in
 * response to an EC2 health check indicating it has been terminated or stopped", "an ELB system health check
 * failure", "a user health-check"), Capacity Rebalancing ("in response to an EC2 instance rebalance
 * recommendation"), spot ("a spot instance interruption notice"), instance refresh, and a change of the desired
 * capacity ("changing the desired capacity from 3 to 2", "shrinking the capacity from 3 to 2"). See
 * https://docs.aws.amazon.com/autoscaling/ec2/userguide/as-verify-scaling-activity.html and
 * https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-capacity-rebalancing.html.
 */
export function reasonOfCause(cause: string): TerminationReason {
  const text = cause.toLowerCase();
  if (/rebalance recommendation/.test(text)) return 'rebalance';
  if (/spot instance interruption|spot interruption/.test(text)) return 'spot-interruption';
  if (/health[ -]?check|unhealthy|impaired/.test(text)) return 'unhealthy';
  if (/instance refresh/.test(text)) return 'refresh';
  const capacity = text.match(/(?:changing the desired capacity|shrinking the capacity) from (\d+) to (\d+)/);
  return capacity && Number(capacity[2]) < Number(capacity[1]) ? 'scale-in' : 'unspecified';
}

/**
 * The cluster an EC2 instance belongs to, from its tags: `eks:eks-cluster-name` (Karpenter's default tags and EKS Auto
 * Mode), `eks:cluster-name` (managed node groups), or the `kubernetes.io/cluster/NAME` key every EKS node carries.
 * Karpenter's default tags: https://karpenter.sh/docs/concepts/nodeclasses/ ("Tags"); managed node groups:
 * https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html.
 */
export function clusterOfTags(tags: Readonly<Record<string, string>>): string | undefined {
  const named = tags['eks:eks-cluster-name'] ?? tags['eks:cluster-name'];
  if (named) return named;
  const prefix = 'kubernetes.io/cluster/';
  const key = Object.keys(tags).find((k) => k.startsWith(prefix) && k.length > prefix.length);
  return key?.slice(prefix.length);
}

/**
 * Whether the poller counts a cluster's node churn from the events: an EKS cluster with nodes (Fargate alone has
 * none to repair) whose `nodes.replaced` is not mapped to a metric of the user's own.
 */
export function countsNodeChurn(cluster: ClusterConfig): boolean {
  const { source } = cluster;
  if (source.profile !== 'eks' || source.custom['nodes.replaced'] !== undefined) return false;
  const kinds = source.nodes === undefined ? [] : typeof source.nodes === 'string' ? [source.nodes] : source.nodes;
  return !(kinds.length > 0 && kinds.every((kind) => kind === 'fargate'));
}

/**
 * Where a node event's cluster is found: by one of its Auto Scaling groups, or by the EKS name its tags give, each
 * within the account and Region the event came from. Both answer the cluster's display name.
 */
export interface NodeClusters {
  /** The display names of the watched clusters. */
  readonly watched: ReadonlySet<string>;
  readonly ofGroup: (group: string, account: string, region: string) => string | undefined;
  readonly ofName: (name: string, account: string, region: string) => string | undefined;
}

/** The configured clusters as node events find them; `ops` fills in the account and Region a cluster leaves unset. */
export function nodeClusters(
  clusters: readonly ClusterConfig[],
  ops: { accountId?: string | undefined; region?: string | undefined },
): NodeClusters {
  return {
    watched: new Set(clusters.map(displayNameOf)),
    ofGroup: clusterFinder(clusters, ops, (c) => c.source.nodeGroups),
    ofName: clusterFinder(clusters, ops, (c) => [c.name]),
  };
}

/**
 * A scenario's churn signals as the node-churn function would record them: the events that give `nodes.replaced` give
 * `nodes.interrupted` and `nodes.scaledin` with it, so a scenario that leaves those out had none (0 wherever
 * `nodes.replaced` has a sample), and every scenario written before they existed replays as it did.
 */
export function withChurnCompanions(series: SeriesBySignal): SeriesBySignal {
  const replaced = series['nodes.replaced'];
  if (!replaced) return series;
  const none = Array.from(replaced, (value) => (value === null || Number.isNaN(value) ? null : 0));
  return { 'nodes.interrupted': none, 'nodes.scaledin': none, ...series };
}
