import type { DeploymentConfig } from '../shared/config/deployment-config.ts';
import { AUTO_SCALING_METRICS, CONTAINER_INSIGHTS_METRICS, EKS_METRICS } from '../shared/config/metric-catalogue.ts';

/** The CloudWatch namespaces of the `eks` source profile: vended control-plane metrics, Container Insights, node groups. */
export const EKS_PROFILE_NAMESPACES = [
  EKS_METRICS.namespace,
  CONTAINER_INSIGHTS_METRICS.namespace,
  AUTO_SCALING_METRICS.namespace,
] as const;

/**
 * Every namespace the poller may read: the `eks` profile's namespaces and each custom metric's namespace. A workload
 * account's OAM link shares exactly these with the ops account, and nothing else.
 */
export function watchedNamespaces(config: DeploymentConfig): string[] {
  const custom = config.clusters.flatMap((cluster) =>
    Object.values(cluster.source.custom).flatMap((metric) => (metric ? [metric.namespace] : [])),
  );
  return [...new Set<string>([...EKS_PROFILE_NAMESPACES, ...custom.sort()])];
}

/**
 * An OAM link filter sharing the given namespaces, e.g. `Namespace IN ('AWS/EKS', 'ContainerInsights')`. CloudWatch
 * namespaces cannot contain quotes, so none need escaping.
 */
export function namespaceFilter(namespaces: readonly string[]): string {
  return `Namespace IN (${namespaces.map((namespace) => `'${namespace}'`).join(', ')})`;
}
