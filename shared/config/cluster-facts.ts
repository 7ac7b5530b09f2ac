import type { ClusterFacts } from '../engine/hint-scope.ts';
import type { ClusterConfig } from './deployment-config.ts';

/** What a cluster's configuration tells its pages: its kind, and the names their commands carry. */
export function clusterFacts(cluster: ClusterConfig): ClusterFacts {
  const { nodes } = cluster.source;
  return {
    name: cluster.name,
    ...(cluster.region && { region: cluster.region }),
    ...(cluster.accountId && { accountId: cluster.accountId }),
    ...(cluster.source.profile === 'eks' && { controlPlane: 'eks-control-plane' as const }),
    ...(nodes !== undefined && { nodes: typeof nodes === 'string' ? [nodes] : nodes }),
    autoScalingGroups: cluster.source.nodeGroups,
  };
}
