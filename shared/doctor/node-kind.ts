import { NODE_KINDS, type NodeKind } from '../engine/hint-scope.ts';

/**
 * What `sentinel doctor` makes of what EKS says about a cluster whose configuration does not say how its nodes run
 * (`source.nodes`): the kinds to set, in the configuration's own words, and the line to add. Pure: the CLI asks EKS.
 */

/** What EKS answers about how a cluster's nodes run: DescribeCluster, ListNodegroups and ListFargateProfiles. */
export interface EksNodeFacts {
  /** DescribeCluster's `computeConfig.enabled`: EKS Auto Mode runs the cluster's compute. */
  readonly autoMode: boolean;
  /** The names ListNodegroups lists: EKS managed node groups (self-managed groups and Karpenter are not listed). */
  readonly managedNodeGroups: readonly string[];
  /** The names ListFargateProfiles lists. */
  readonly fargateProfiles: readonly string[];
}

/** What doctor learned about a cluster's kind: EKS described it, or it could not be asked (and why). */
export type NodeKindObservation =
  | { readonly status: 'described'; readonly facts: EksNodeFacts }
  | { readonly status: 'not-asked'; readonly reason: string };

export interface NodeKindVerdict {
  /** The kinds to set under `source.nodes`, in the order the configuration lists them. */
  readonly kinds: readonly NodeKind[];
  /**
   * The kinds EKS cannot tell apart: with no managed node group, no Fargate profile and Auto Mode off, the nodes are
   * self-managed groups or Karpenter's, neither of which the EKS API lists.
   */
  readonly undecided: readonly NodeKind[];
  /** What EKS reported, in words: "managed node groups (2), Fargate profiles (1)". */
  readonly reported: string;
}

const UNLISTED: readonly NodeKind[] = ['self-managed-groups', 'karpenter'];

/**
 * The kinds EKS's answers name. Auto Mode, managed node groups and Fargate profiles can run side by side, so every
 * one reported is a kind. `configuredGroups`, the Auto Scaling groups the configuration names (`source.nodeGroups`),
 * settles the case EKS cannot: groups that are not managed node groups are self-managed.
 */
export function nodeKindOf(facts: EksNodeFacts, configuredGroups: readonly string[] = []): NodeKindVerdict {
  const seen = new Set<NodeKind>();
  const words: string[] = [];
  if (facts.autoMode) {
    seen.add('auto-mode');
    words.push('Auto Mode');
  }
  if (facts.managedNodeGroups.length > 0) {
    seen.add('managed-node-groups');
    words.push(`managed node groups (${facts.managedNodeGroups.length})`);
  }
  if (facts.fargateProfiles.length > 0) {
    seen.add('fargate');
    words.push(`Fargate profiles (${facts.fargateProfiles.length})`);
  }
  const kinds = NODE_KINDS.filter((kind) => seen.has(kind));
  if (kinds.length > 0) return { kinds, undecided: [], reported: words.join(', ') };
  const reported = 'no managed node group, no Fargate profile and Auto Mode off';
  return configuredGroups.length > 0
    ? { kinds: ['self-managed-groups'], undecided: [], reported }
    : { kinds: [], undecided: UNLISTED, reported };
}

/** The doctor's line for one cluster: what EKS reports and the setting to add, or why it could not be asked. */
export function describeNodeKind(
  cluster: string,
  observation: NodeKindObservation,
  configuredGroups: readonly string[],
): string {
  if (observation.status === 'not-asked') return `${cluster}: ${observation.reason}`;
  const { kinds, undecided, reported } = nodeKindOf(observation.facts, configuredGroups);
  if (kinds.length === 0) {
    return `${cluster}: EKS reports ${reported}: the nodes are ${undecided.join(' or ')}, which EKS cannot tell apart: add ${undecided.map((kind) => nodesSetting([kind])).join(' or ')}`;
  }
  const groups = kinds.includes('self-managed-groups') ? ' (the Auto Scaling groups of source.nodeGroups)' : '';
  return `${cluster}: EKS reports ${reported}${groups}: add ${nodesSetting(kinds)}`;
}

/** `"source": {"nodes": "auto-mode"}`, or a list when several kinds run side by side. */
function nodesSetting(kinds: readonly NodeKind[]): string {
  return `"source": {"nodes": ${JSON.stringify(kinds.length === 1 ? kinds[0] : kinds)}}`;
}
