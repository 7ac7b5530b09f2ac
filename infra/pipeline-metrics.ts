import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SELF_NAMESPACE } from '../aws/emf.ts';

/** The dimension the poller's EMF lines carry; its value is the stack name (`SENTINEL_DEPLOYMENT`). */
export const DEPLOYMENT_DIMENSION = 'Deployment';

export type PipelineMetricName =
  | 'ClustersPolled'
  | 'MetricsRequested'
  | 'Findings'
  | 'NotificationsSent'
  | 'NotificationFailures'
  | 'UnreadableClusters'
  | 'PollDurationMs'
  | 'Heartbeat';

/** One of the poller's own metrics for this deployment, per minute (the poller's pace). */
export function pipelineMetric(
  name: PipelineMetricName,
  deployment: string,
  options: { statistic?: string; label?: string } = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: SELF_NAMESPACE,
    metricName: name,
    dimensionsMap: { [DEPLOYMENT_DIMENSION]: deployment },
    statistic: options.statistic ?? cloudwatch.Stats.SUM,
    period: Duration.minutes(1),
    ...(options.label && { label: options.label }),
  });
}
