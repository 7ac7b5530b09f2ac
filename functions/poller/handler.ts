import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { parser } from '@aws-lambda-powertools/parser/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { cloudWatchClients, documentClient, snsClient } from '../../aws/clients.ts';
import { CloudWatchMetricSource } from '../../aws/cloudwatch-metric-source.ts';
import { DynamoDbNodeChurnReader } from '../../aws/dynamodb-node-churn-reader.ts';
import { dynamoDbStores } from '../../aws/dynamodb-stores.ts';
import { DynamoDbTripwires } from '../../aws/dynamodb-tripwires.ts';
import { requiredEnv } from '../../aws/environment.ts';
import { SnsNotifier } from '../../aws/sns-notifier.ts';
import { NodeChurnMetricSource } from '../../shared/churn/churn-metric-source.ts';
import { configuredPlan } from '../../shared/pipeline/build-plan.ts';
import { loadBundledConfig } from '../bundled-config.ts';
import { explainInvalidEvent } from '../invalid-event.ts';
import { logger, metrics } from '../powertools.ts';
import { type PollEvent, type PollSummary, pollEventSchema, pollOnSchedule } from './poll-on-schedule.ts';

// Built once per cold start: configuration, plan and clients are reused by every invocation of this container.
const loaded = loadBundledConfig(requiredEnv('SENTINEL_CONFIG_FILE'));
const { config } = loaded;
const plan = configuredPlan({ ...loaded, region: requiredEnv('AWS_REGION') });
const table = requiredEnv('SENTINEL_TABLE');
const db = documentClient();
// CloudWatch for the cluster signals; the table for node churn, which the node-churn function counts from events.
const metricSource = new NodeChurnMetricSource(
  new CloudWatchMetricSource({
    clientFor: cloudWatchClients(process.env.AWS_REGION),
    clusters: config.clusters,
    signals: plan.ruleSet.signals(),
  }),
  new DynamoDbNodeChurnReader(db, table),
  config.clusters,
  plan.ruleSet.signals(),
);
const stores = dynamoDbStores({ client: db, table, now: Date.now });
const tripwires = new DynamoDbTripwires(db, table);
const notifier = new SnsNotifier(snsClient(), {
  paging: requiredEnv('SENTINEL_PAGING_TOPIC_ARN'),
  notice: requiredEnv('SENTINEL_NOTICE_TOPIC_ARN'),
});

export const handler = middy<PollEvent, PollSummary, Error, Context>()
  .use(injectLambdaContext(logger))
  .use(logMetrics(metrics))
  .use(explainInvalidEvent())
  .use(parser({ schema: pollEventSchema }))
  .handler((event, context) =>
    pollOnSchedule(
      {
        plan,
        metrics: metricSource,
        ...stores,
        notifier,
        tripwires,
        owner: context.awsRequestId,
        now: Date.now,
        leaseMs: 60_000,
        ingestionLag: config.poll.ingestionLag,
        logger,
        pipelineMetrics: metrics,
        dashboard: config.dashboard.enabled,
      },
      event,
    ),
  );
