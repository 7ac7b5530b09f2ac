import type { SignalName } from '../engine/signals.ts';
import type { ClusterConfig, CustomMetric } from './deployment-config.ts';

/**
 * The one catalogue of the CloudWatch metrics a cluster's signals come from: the poller's query plan
 * (shared/pipeline/query-plan.ts), the tripwire alarms (shared/pipeline/tripwire-alarm.ts), the dashboard
 * (infra/sentinel-dashboard.ts) and the console graph of every notification (shared/notify/graph-link.ts) read their
 * names here, so none of them can graph or read a metric the others do not.
 *
 * The EKS names and statistics are those "Monitor cluster data with Amazon CloudWatch" lists for the AWS/EKS namespace
 * (https://docs.aws.amazon.com/eks/latest/userguide/cloudwatch.html); Container Insights' node counts are in
 * "Amazon EKS and Kubernetes Container Insights metrics"
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Container-Insights-metrics-EKS.html); Auto Scaling's
 * group metrics in "Amazon CloudWatch metrics for Amazon EC2 Auto Scaling"
 * (https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-metrics.html).
 */

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

export type RequestVerb = 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'GET' | 'LIST';
export type WebhookType = 'ADMIT' | 'VALIDATING';

/** EKS vended control-plane metrics, one set per cluster under the `ClusterName` dimension. */
export const EKS_METRICS = {
  namespace: 'AWS/EKS',
  dimension: 'ClusterName',
  requestDurationP99: (verb: RequestVerb) => `apiserver_request_duration_seconds_${verb}_P99`,
  webhookDurationP99: (type: WebhookType) => `apiserver_admission_webhook_admission_duration_seconds_${type}_P99`,
  requests: 'apiserver_request_total',
  requests5xx: 'apiserver_request_total_5XX',
  requests429: 'apiserver_request_total_429',
  webhookRequests: 'apiserver_admission_webhook_request_total',
  webhookRejections: 'apiserver_admission_webhook_rejection_count',
} as const;

/** Container Insights' cluster-level node counts, under the `ClusterName` dimension. */
export const CONTAINER_INSIGHTS_METRICS = {
  namespace: 'ContainerInsights',
  dimension: 'ClusterName',
  nodes: 'cluster_node_count',
  failedNodes: 'cluster_failed_node_count',
} as const;

/**
 * Auto Scaling group metrics, one set per group under the `AutoScalingGroupName` dimension: the dashboard graphs the
 * instances terminating, which is a gauge of instance-minutes, not a count of replacements (that comes from events).
 */
export const AUTO_SCALING_METRICS = {
  namespace: 'AWS/AutoScaling',
  dimension: 'AutoScalingGroupName',
  terminating: 'GroupTerminatingInstances',
} as const;

/** A Container Insights cluster-level metric of the cluster named `cluster`. */
export const containerInsightsMetric = (cluster: string, metricName: string): MetricSpec => ({
  namespace: CONTAINER_INSIGHTS_METRICS.namespace,
  metricName,
  dimensions: { [CONTAINER_INSIGHTS_METRICS.dimension]: cluster },
  stat: 'Maximum',
});

export const WRITE_VERBS: readonly RequestVerb[] = ['POST', 'PUT', 'PATCH', 'DELETE'];
export const READ_VERBS: readonly RequestVerb[] = ['GET', 'LIST'];
export const WEBHOOK_TYPES: readonly WebhookType[] = ['ADMIT', 'VALIDATING'];

const eks = (cluster: string, metricName: string, stat: MetricSpec['stat']): MetricSpec => ({
  namespace: EKS_METRICS.namespace,
  metricName,
  dimensions: { [EKS_METRICS.dimension]: cluster },
  stat,
});

/**
 * EKS publishes each `_P99` metric once a minute, already a percentile over all API servers, and documents Average as
 * its valid statistic. Over a one-minute period Average is that one value; over longer periods it is the mean of the
 * minutes' p99s, where Maximum would be the worst minute.
 */
const p99s = (cluster: string, names: readonly string[]) => names.map((name) => eks(cluster, name, 'Average'));

/**
 * The metrics of a cluster's source profile, by signal, before its custom metrics (docs/scenarios.md names the
 * mapping): EKS vended control-plane metrics and Container Insights node counts. Node churn is no CloudWatch metric:
 * the node-churn function counts it from Auto Scaling and EC2 events (NodeChurnMetricSource adds it to a reading).
 */
export function profileSources(cluster: ClusterConfig): SignalSource[] {
  if (cluster.source.profile !== 'eks') return [];
  const name = cluster.name;
  const sources: SignalSource[] = [
    {
      signal: 'apiserver.write.p99',
      combine: 'max',
      metrics: p99s(name, WRITE_VERBS.map(EKS_METRICS.requestDurationP99)),
    },
    {
      signal: 'apiserver.read.p99',
      combine: 'max',
      metrics: p99s(name, READ_VERBS.map(EKS_METRICS.requestDurationP99)),
    },
    { signal: 'apiserver.requests', combine: 'sum', metrics: [eks(name, EKS_METRICS.requests, 'Sum')] },
    { signal: 'apiserver.5xx', combine: 'sum', metrics: [eks(name, EKS_METRICS.requests5xx, 'Sum')] },
    { signal: 'apiserver.429', combine: 'sum', metrics: [eks(name, EKS_METRICS.requests429, 'Sum')] },
    { signal: 'webhook.requests', combine: 'sum', metrics: [eks(name, EKS_METRICS.webhookRequests, 'Sum')] },
    { signal: 'webhook.rejections', combine: 'sum', metrics: [eks(name, EKS_METRICS.webhookRejections, 'Sum')] },
    { signal: 'webhook.p99', combine: 'max', metrics: p99s(name, WEBHOOK_TYPES.map(EKS_METRICS.webhookDurationP99)) },
  ];
  if (cluster.source.containerInsights) {
    const insights = (metricName: string) => containerInsightsMetric(name, metricName);
    sources.push(
      { signal: 'nodes.total', combine: 'max', metrics: [insights(CONTAINER_INSIGHTS_METRICS.nodes)] },
      { signal: 'nodes.notready', combine: 'max', metrics: [insights(CONTAINER_INSIGHTS_METRICS.failedNodes)] },
    );
  }
  return sources;
}

/** A cluster's metrics by signal: its profile's, with the custom metrics it configured replacing or completing them. */
export function clusterSources(cluster: ClusterConfig): SignalSource[] {
  const custom = Object.entries(cluster.source.custom) as [SignalName, CustomMetric][];
  const replaced = new Set(custom.map(([signal]) => signal));
  return [
    ...profileSources(cluster).filter((source) => !replaced.has(source.signal)),
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
