import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { cloudWatchClients, documentClient, snsClient } from '../../aws/clients.ts';
import { CloudWatchMetricSource } from '../../aws/cloudwatch-metric-source.ts';
import { DynamoDbIncidentStore } from '../../aws/dynamodb-incident-store.ts';
import { requiredEnv } from '../../aws/environment.ts';
import { SnsNotifier } from '../../aws/sns-notifier.ts';
import { buildPlan, configuredMaintenance } from '../../shared/pipeline/build-plan.ts';
import { loadBundledConfig } from '../bundled-config.ts';
import { validateEvent } from '../validate-event.ts';
import { type PollEvent, type PollSummary, pollEventSchema, pollOnSchedule } from './poll-on-schedule.ts';

// Built once per cold start: configuration, plan and clients are reused by every invocation of this container.
const { config, ruleSet } = loadBundledConfig(requiredEnv('SENTINEL_CONFIG_FILE'));
const plan = buildPlan({
  ruleSet,
  config,
  clusters: config.clusters.map((c) => c.name),
  maintenance: configuredMaintenance(config),
  stepSeconds: 60,
});
const metrics = new CloudWatchMetricSource({
  clientFor: cloudWatchClients(process.env.AWS_REGION),
  clusters: config.clusters,
});
const store = new DynamoDbIncidentStore({
  client: documentClient(),
  table: requiredEnv('SENTINEL_TABLE'),
  now: Date.now,
});
const notifier = new SnsNotifier(snsClient(), {
  paging: requiredEnv('SENTINEL_PAGING_TOPIC_ARN'),
  notice: requiredEnv('SENTINEL_NOTICE_TOPIC_ARN'),
});
const deployment = requiredEnv('SENTINEL_DEPLOYMENT');

export const handler = middy<PollEvent, PollSummary, Error, Context>()
  .use(validateEvent(pollEventSchema))
  .handler((event, context) =>
    pollOnSchedule(
      {
        plan,
        metrics,
        store,
        notifier,
        owner: context.awsRequestId,
        now: Date.now,
        leaseMs: 60_000,
        ingestionLag: config.poll.ingestionLag,
        deployment,
        log: (line) => console.log(line),
      },
      event,
    ),
  );
