import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { parser } from '@aws-lambda-powertools/parser/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { cloudWatchClients, documentClient, snsClient, sqsClient } from '../../aws/clients.ts';
import { CloudWatchMetricSource } from '../../aws/cloudwatch/metric-source.ts';
import { CloudWatchTripwireAlarms } from '../../aws/cloudwatch/tripwire-alarms.ts';
import { DynamoDbNodeChurnReader } from '../../aws/dynamodb/node-churn-reader.ts';
import { DynamoDbShardFindings } from '../../aws/dynamodb/shard-findings.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { DynamoDbTable } from '../../aws/dynamodb/table.ts';
import { DynamoDbTripwireRecorder } from '../../aws/dynamodb/tripwire-recorder.ts';
import { DynamoDbTripwires } from '../../aws/dynamodb/tripwires.ts';
import { positiveIntegerEnv, requiredEnv } from '../../aws/environment.ts';
import { SnsNotifier } from '../../aws/sns/notifier.ts';
import { SqsShardQueue } from '../../aws/sqs/shard-queue.ts';
import { HttpHeartbeat } from '../../aws/vendors/heartbeat.ts';
import { secretValues } from '../../aws/vendors/secret-values.ts';
import { NodeChurnMetricSource } from '../../shared/churn/churn-metric-source.ts';
import { hasTripwire } from '../../shared/config/deployment-shape.ts';
import { configuredPlan } from '../../shared/pipeline/build-plan.ts';
import type { FanOut } from '../../shared/pipeline/shards.ts';
import { loadBundledConfig } from '../bundled-config.ts';
import { explainInvalidEvent } from '../invalid-event.ts';
import { logger, metrics, publishRecordedMetrics } from '../powertools.ts';
import { type PollEvent, type PollSummary, pollEventSchema, pollOnSchedule } from './poll-on-schedule.ts';

// Built once per cold start: configuration, plan and clients are reused by every invocation of this container.
const loaded = loadBundledConfig(requiredEnv('SENTINEL_CONFIG_FILE'));
const { config } = loaded;
const plan = configuredPlan({ ...loaded, region: requiredEnv('AWS_REGION') });
const table = requiredEnv('SENTINEL_TABLE');
const db = documentClient();
const incidentTable = new DynamoDbTable({ client: db, table, now: Date.now });
const cloudWatch = cloudWatchClients(process.env.AWS_REGION);
// CloudWatch for the cluster signals; the table for node churn, which the node-churn function counts from events.
const metricSource = new NodeChurnMetricSource(
  new CloudWatchMetricSource({
    clientFor: cloudWatch,
    clusters: config.clusters,
    signals: plan.ruleSet.signals(),
  }),
  new DynamoDbNodeChurnReader(incidentTable),
  config.clusters,
  plan.ruleSet.signals(),
);
// DynamoDB's own partition line unless a stand-in holds one scaled to a smaller fleet (support/fleet-outage.ts).
const partitionLine = process.env.SENTINEL_PARTITION_WRITE_UNITS;
const stores = dynamoDbStores({
  client: db,
  table,
  now: Date.now,
  ...(partitionLine && { partitionWriteUnits: positiveIntegerEnv('SENTINEL_PARTITION_WRITE_UNITS') }),
});
const tripwires = new DynamoDbTripwires(incidentTable);
// The tripwire states as CloudWatch holds them, read back on the slow cadence: an alarm that stays in ALARM sends no
// further event, and its recorded state would otherwise expire.
const tripwireRefresh = {
  alarms: new CloudWatchTripwireAlarms({
    deployment: requiredEnv('SENTINEL_DEPLOYMENT'),
    clientFor: cloudWatch,
    regions: config.clusters.filter((c) => hasTripwire(c, config)).map((c) => c.region ?? 'default'),
  }),
  recorder: new DynamoDbTripwireRecorder(db, table),
};
const notifier = new SnsNotifier(snsClient(), {
  paging: requiredEnv('SENTINEL_PAGING_TOPIC_ARN'),
  notice: requiredEnv('SENTINEL_NOTICE_TOPIC_ARN'),
});
// The shard queue exists only in a deployment whose fleet is larger than one shard (infra/shard-workers.ts), which
// sets the shard size beside it.
const shardQueueUrl = process.env.SENTINEL_SHARD_QUEUE_URL;
const shardQueue = shardQueueUrl ? new SqsShardQueue(sqsClient(), shardQueueUrl) : undefined;
const shardSize = shardQueue ? positiveIntegerEnv('SENTINEL_SHARD_SIZE') : 0;
const heartbeat = config.selfMonitoring.externalHeartbeat;
const externalHeartbeat = heartbeat && new HttpHeartbeat({ ...heartbeat, secrets: secretValues() });
/** What the poll keeps of its time, after waiting for the shards, to run the step, commit it and deliver. */
const JOIN_RESERVE_MS = 10_000;
/**
 * What the poll keeps of its time after the last batch of a step's incidents it starts: a fleet outage's step can
 * change more incidents than one invocation has time to save, and the next poll saves the rest from the last mark.
 * A batch is started only when one as long as the longest so far ends by then, so this is for a first batch, whose
 * length is not known yet (250 incidents, about half a second at the paced partition line), and what follows the
 * stop: the lease let go, the tripwire refresh awaited, the poll's record.
 */
const WRITE_RESERVE_MS = 5_000;

/** How a step larger than one shard fans out: the poll waits for the shards as long as its timeout leaves room. */
function fanOut(queue: SqsShardQueue, context: Context): FanOut {
  return {
    queue,
    findings: new DynamoDbShardFindings(incidentTable, context.awsRequestId),
    shardSize,
    waitUntil: Date.now() + context.getRemainingTimeInMillis() - JOIN_RESERVE_MS,
    checkEveryMs: 1_000,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}

export const handler = middy<PollEvent, PollSummary, Error, Context>()
  .use(injectLambdaContext(logger))
  .use(publishRecordedMetrics(metrics))
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
        tripwireRefresh,
        owner: context.awsRequestId,
        ...(shardQueue && { fanOut: fanOut(shardQueue, context) }),
        now: Date.now,
        leaseMs: 60_000,
        writeUntil: Date.now() + context.getRemainingTimeInMillis() - WRITE_RESERVE_MS,
        ingestionLag: config.poll.ingestionLag,
        logger,
        pipelineMetrics: metrics,
        dashboard: config.dashboard.enabled,
        ...(externalHeartbeat && { externalHeartbeat }),
      },
      event,
    ),
  );
