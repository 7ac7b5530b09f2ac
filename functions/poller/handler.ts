import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { cloudWatchClients, documentClient, snsClient } from '../../aws/clients.ts';
import { CloudWatchMetricSource } from '../../aws/cloudwatch-metric-source.ts';
import { DynamoDbIncidentStore } from '../../aws/dynamodb-incident-store.ts';
import { DynamoDbTripwires } from '../../aws/dynamodb-tripwires.ts';
import { requiredEnv } from '../../aws/environment.ts';
import { SnsNotifier } from '../../aws/sns-notifier.ts';
import { configuredPlan } from '../../shared/pipeline/build-plan.ts';
import { loadBundledConfig } from '../bundled-config.ts';
import { validateEvent } from '../validate-event.ts';
import { type PollEvent, type PollSummary, pollEventSchema, pollOnSchedule } from './poll-on-schedule.ts';

// Built once per cold start: configuration, plan and clients are reused by every invocation of this container.
const loaded = loadBundledConfig(requiredEnv('SENTINEL_CONFIG_FILE'));
const { config } = loaded;
const plan = configuredPlan(loaded);
const table = requiredEnv('SENTINEL_TABLE');
const db = documentClient();
const metrics = new CloudWatchMetricSource({
  clientFor: cloudWatchClients(process.env.AWS_REGION),
  clusters: config.clusters,
  signals: plan.ruleSet.signals(),
});
const store = new DynamoDbIncidentStore({ client: db, table, now: Date.now });
const tripwires = new DynamoDbTripwires(db, table);
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
        tripwires,
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
