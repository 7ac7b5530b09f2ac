import type { MetricDatum } from '@aws-sdk/client-cloudwatch';
import type { ClusterConfig } from '../../shared/config/deployment-config.ts';
import { type MetricSpec, signalSources } from '../../shared/pipeline/query-plan.ts';
import type { CloudWatchServer } from '../../support/cloudwatch-server.ts';

const MINUTE = 60_000;

/**
 * Every metric of each cluster's source profile reports to the loopback CloudWatch, in the cluster's account, ten
 * datapoints a minute apart until two minutes before `now`; `skip` leaves out the metrics a cluster does not publish.
 */
export function reportEverySignal(
  cloudwatch: CloudWatchServer,
  clusters: readonly ClusterConfig[],
  now: number,
  skip: (cluster: ClusterConfig, metric: MetricSpec) => boolean = () => false,
): void {
  for (const cluster of clusters) {
    for (const { metrics } of signalSources(cluster)) {
      for (const metric of metrics) {
        if (skip(cluster, metric)) continue;
        const data: MetricDatum[] = Array.from({ length: 10 }, (_, i) => ({
          MetricName: metric.metricName,
          Dimensions: Object.entries(metric.dimensions).map(([Name, Value]) => ({ Name, Value })),
          Timestamp: new Date(now - (11 - i) * MINUTE),
          Value: 1,
        }));
        cloudwatch.put({ Namespace: metric.namespace, MetricData: data }, cluster.accountId);
      }
    }
  }
}
