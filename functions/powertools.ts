import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { requiredEnv } from '../aws/environment.ts';
import { DEPLOYMENT_DIMENSION, PIPELINE_NAMESPACE } from '../shared/pipeline/pipeline-metrics.ts';

/**
 * Powertools, built once for every function (as in Powertools' examples/app) and attached by the handlers with
 * `injectLambdaContext(logger)` and, where they record metrics, `logMetrics(metrics)`.
 */
const SERVICE = 'k8s-incident-sentinel';

export const logger = new Logger({ serviceName: SERVICE });

export const metrics = new Metrics({ namespace: PIPELINE_NAMESPACE, serviceName: SERVICE, logger });
// Powertools gives every metric a `service` dimension. The alarms and the dashboard read each metric by `Deployment`
// alone, and to CloudWatch another set of dimensions is another metric: keep exactly the one they read.
metrics.clearDefaultDimensions();
metrics.setDefaultDimensions({ [DEPLOYMENT_DIMENSION]: requiredEnv('SENTINEL_DEPLOYMENT') });
