import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import { requiredEnv } from '../aws/environment.ts';
import { DEPLOYMENT_DIMENSION, PIPELINE_NAMESPACE } from '../shared/pipeline/pipeline-metrics.ts';

/**
 * Powertools, built once for every function (as in Powertools' examples/app) and attached by the handlers with
 * `injectLambdaContext(logger)` and, where they record metrics, `publishRecordedMetrics(metrics)`.
 */
const SERVICE = 'k8s-incident-sentinel';

export const logger = new Logger({ serviceName: SERVICE });

export const metrics = new Metrics({ namespace: PIPELINE_NAMESPACE, serviceName: SERVICE, logger });
// Powertools gives every metric a `service` dimension. The alarms and the dashboard read each metric by `Deployment`
// alone, and to CloudWatch another set of dimensions is another metric: keep exactly the one they read.
metrics.clearDefaultDimensions();
metrics.setDefaultDimensions({ [DEPLOYMENT_DIMENSION]: requiredEnv('SENTINEL_DEPLOYMENT') });

/**
 * Flush what an invocation recorded, after it or on its error, and nothing when it recorded nothing. Powertools'
 * `logMetrics` flushes every time, and a flush of no metric logs a warning: a healthy poll records none (every pipeline
 * metric is sent only while failing, docs/deploy.md), so that would be a warning a minute in the poller's log.
 */
export function publishRecordedMetrics(target: Metrics): MiddlewareObj {
  const publish = async () => {
    if (target.hasStoredMetrics()) target.publishStoredMetrics();
  };
  return { after: publish, onError: publish };
}
