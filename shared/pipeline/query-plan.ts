import type { ClusterConfig } from '../config/deployment-config.ts';
import { clusterSources, type SignalSource } from '../config/metric-catalogue.ts';
import type { SignalName } from '../engine/signals.ts';

export type { MetricSpec, SignalSource } from '../config/metric-catalogue.ts';

/**
 * The metrics a poll reads for one cluster, from the metric catalogue (shared/config/metric-catalogue.ts: its source
 * profile, completed or replaced by its custom metrics). Node churn (`nodes.replaced` and the signals beside it) is
 * not a CloudWatch metric: the node-churn function counts it from the Auto Scaling and EC2 events, and
 * NodeChurnMetricSource adds it. With `needed`, only the signals some rule reads:
 * GetMetricData bills every metric requested, and a signal no rule reads is paid for nothing.
 */
export function signalSources(cluster: ClusterConfig, needed?: ReadonlySet<SignalName>): SignalSource[] {
  const sources = clusterSources(cluster);
  return needed ? sources.filter((source) => needed.has(source.signal)) : sources;
}

/** Metrics requested per poll for a fleet: what CloudWatch bills GetMetricData by. */
export function metricsPerPoll(clusters: readonly ClusterConfig[], needed?: ReadonlySet<SignalName>): number {
  return clusters.reduce(
    (total, cluster) => total + signalSources(cluster, needed).reduce((n, s) => n + s.metrics.length, 0),
    0,
  );
}
