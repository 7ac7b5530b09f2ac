import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
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

/**
 * Polls that did their job, per minute: the poller's invocations (`AWS/Lambda`, free to publish) less its idle polls
 * (`IdlePolls`, sent only in a minute that has one). FILL reads a minute without a datapoint of either as 0: no idle
 * poll, or no invocation. A failed invocation counts as a poll here; `PollerErrors` pages for it.
 */
export function pollsThatDidTheirJob(poller: lambda.IFunction, deployment: string, label?: string): cloudwatch.IMetric {
  return new cloudwatch.MathExpression({
    expression: 'FILL(invocations, 0) - FILL(idle, 0)',
    usingMetrics: {
      invocations: poller.metricInvocations({ period: PERIOD, statistic: cloudwatch.Stats.SUM }),
      idle: pipelineMetric('IdlePolls', deployment),
    },
    period: PERIOD,
    ...(label && { label }),
  });
}
