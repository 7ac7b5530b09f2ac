import type { ClusterConfig, CustomMetric } from '../shared/config/deployment-config.ts';
import type { SignalName } from '../shared/engine/signals.ts';

/** One CloudWatch metric as GetMetricData names it. */
export interface MetricSpec {
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Readonly<Record<string, string>>;
  readonly stat: CustomMetric['stat'];
}

/** Where one canonical signal comes from, and how its metrics combine into one value per step. */
export interface SignalSource {
  readonly signal: SignalName;
  readonly combine: 'max' | 'sum';
  readonly metrics: readonly MetricSpec[];
}

const eks = (cluster: string, metricName: string, stat: MetricSpec['stat']): MetricSpec => ({
  namespace: 'AWS/EKS',
  metricName,
  dimensions: { ClusterName: cluster },
  stat,
});
/**
 * EKS publishes each `_P99` metric once a minute, already a percentile over all API servers, and documents Average as
 * its valid statistic (https://docs.aws.amazon.com/eks/latest/userguide/cloudwatch.html). Over a one-minute period
 * Average is that one value; over longer periods it is the mean of the minutes' p99s, where Maximum would be the worst
 * minute.
 */
const p99 = (cluster: string, prefix: string, parts: readonly string[]) =>
  parts.map((part) => eks(cluster, `${prefix}_${part}_P99`, 'Average'));

/**
 * The metrics a poll reads for one cluster, from its source profile (docs/scenarios.md names the mapping): EKS
 * vended control-plane metrics, Container Insights node counts, and custom metrics that replace or complete any of
 * them. Node churn (`nodes.replaced` and the signals beside it) is not a CloudWatch metric: the node-churn function
 * counts it from the Auto Scaling and EC2 events, and NodeChurnMetricSource adds it. With `needed`, only the signals some rule reads:
 * GetMetricData bills every metric requested, and a signal no rule reads is paid for nothing.
 */
export function signalSources(cluster: ClusterConfig, needed?: ReadonlySet<SignalName>): SignalSource[] {
  const sources = profileSources(cluster);
  return needed ? sources.filter((source) => needed.has(source.signal)) : sources;
}

function profileSources(cluster: ClusterConfig): SignalSource[] {
  const name = cluster.name;
  const sources: SignalSource[] = [];
  if (cluster.source.profile === 'eks') {
    const duration = 'apiserver_request_duration_seconds';
    const webhookDuration = 'apiserver_admission_webhook_admission_duration_seconds';
    sources.push(
      {
        signal: 'apiserver.write.p99',
        combine: 'max',
        metrics: p99(name, duration, ['POST', 'PUT', 'PATCH', 'DELETE']),
      },
      { signal: 'apiserver.read.p99', combine: 'max', metrics: p99(name, duration, ['GET', 'LIST']) },
      { signal: 'apiserver.requests', combine: 'sum', metrics: [eks(name, 'apiserver_request_total', 'Sum')] },
      { signal: 'apiserver.5xx', combine: 'sum', metrics: [eks(name, 'apiserver_request_total_5XX', 'Sum')] },
      { signal: 'apiserver.429', combine: 'sum', metrics: [eks(name, 'apiserver_request_total_429', 'Sum')] },
      {
        signal: 'webhook.requests',
        combine: 'sum',
        metrics: [eks(name, 'apiserver_admission_webhook_request_total', 'Sum')],
      },
      {
        signal: 'webhook.rejections',
        combine: 'sum',
        metrics: [eks(name, 'apiserver_admission_webhook_rejection_count', 'Sum')],
      },
      { signal: 'webhook.p99', combine: 'max', metrics: p99(name, webhookDuration, ['ADMIT', 'VALIDATING']) },
    );
    if (cluster.source.containerInsights) {
      const insights = (metricName: string): MetricSpec => ({
        namespace: 'ContainerInsights',
        metricName,
        dimensions: { ClusterName: name },
        stat: 'Maximum',
      });
      sources.push(
        { signal: 'nodes.total', combine: 'max', metrics: [insights('cluster_node_count')] },
        { signal: 'nodes.notready', combine: 'max', metrics: [insights('cluster_failed_node_count')] },
      );
    }
  }
  const custom = Object.entries(cluster.source.custom) as [SignalName, CustomMetric][];
  const replaced = new Set(custom.map(([signal]) => signal));
  return [
    ...sources.filter((source) => !replaced.has(source.signal)),
    ...custom.map(([signal, metric]) => ({
      signal,
      combine: 'sum' as const,
      metrics: [
        {
          namespace: metric.namespace,
          metricName: metric.metricName,
          dimensions: metric.dimensions,
          stat: metric.stat,
        },
      ],
    })),
  ];
}

/** Metrics requested per poll for a fleet: what CloudWatch bills GetMetricData by. */
export function metricsPerPoll(clusters: readonly ClusterConfig[], needed?: ReadonlySet<SignalName>): number {
  return clusters.reduce(
    (total, cluster) => total + signalSources(cluster, needed).reduce((n, s) => n + s.metrics.length, 0),
    0,
  );
}
