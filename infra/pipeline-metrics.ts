import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import {
  DEPLOYMENT_DIMENSION,
  PIPELINE_NAMESPACE,
  type PipelineMetricName,
} from '../shared/pipeline/pipeline-metrics.ts';

const PERIOD = Duration.minutes(1);

/** One of the poller's own metrics for this deployment, per minute (the poller's pace). */
export function pipelineMetric(
  name: PipelineMetricName,
  deployment: string,
  options: { statistic?: string; label?: string } = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: PIPELINE_NAMESPACE,
    metricName: name,
    dimensionsMap: { [DEPLOYMENT_DIMENSION]: deployment },
    statistic: options.statistic ?? cloudwatch.Stats.SUM,
    period: PERIOD,
    ...(options.label && { label: options.label }),
  });
}
