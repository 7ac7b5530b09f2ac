import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { SqsEnvelope } from '@aws-lambda-powertools/parser/envelopes/sqs';
import { parser } from '@aws-lambda-powertools/parser/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { cloudWatchClients, documentClient } from '../../aws/clients.ts';
import { CloudWatchMetricSource, DATAPOINTS_PER_SECOND } from '../../aws/cloudwatch/metric-source.ts';
import { DynamoDbNodeChurnReader } from '../../aws/dynamodb/node-churn-reader.ts';
import { DynamoDbShardFindings } from '../../aws/dynamodb/shard-findings.ts';
import { DynamoDbTable } from '../../aws/dynamodb/table.ts';
import { requiredEnv } from '../../aws/environment.ts';
import { NodeChurnMetricSource } from '../../shared/churn/churn-metric-source.ts';
import { configuredPlan } from '../../shared/pipeline/build-plan.ts';
import { SHARD_WORKERS, type ShardTask } from '../../shared/pipeline/shards.ts';
import { loadBundledConfig } from '../bundled-config.ts';
import { explainInvalidEvent } from '../invalid-event.ts';
import { logger } from '../powertools.ts';
import { evaluateShards, type ShardOutcome, shardMessageSchema } from './shard-task.ts';

// Built once per cold start, as the poller's are: the same configuration, plan and reads.
const loaded = loadBundledConfig(requiredEnv('SENTINEL_CONFIG_FILE'));
const plan = configuredPlan({ ...loaded, region: requiredEnv('AWS_REGION') });
const db = documentClient();
const tableName = requiredEnv('SENTINEL_TABLE');
const table = new DynamoDbTable({ client: db, table: tableName, now: Date.now });
// Each of the workers in flight paces its reads at its share of the region's quotas (40 of the 50 TPS, as the poller);
// node churn comes from the table, as the poller reads it.
const metrics = new NodeChurnMetricSource(
  new CloudWatchMetricSource({
    clientFor: cloudWatchClients(process.env.AWS_REGION),
    clusters: loaded.config.clusters,
    signals: plan.ruleSet.signals(),
    callsPerSecond: 40 / SHARD_WORKERS,
    datapointsPerSecond: {
      recent: DATAPOINTS_PER_SECOND.recent / SHARD_WORKERS,
      older: DATAPOINTS_PER_SECOND.older / SHARD_WORKERS,
    },
  }),
  new DynamoDbNodeChurnReader(table),
  loaded.config.clusters,
  plan.ruleSet.signals(),
);

/** A shard worker: reads and evaluates the clusters of the shard messages the poller sent, and reports them. */
export const handler = middy<ShardTask[], ShardOutcome[], Error, Context>()
  .use(injectLambdaContext(logger))
  .use(explainInvalidEvent())
  .use(parser({ schema: shardMessageSchema, envelope: SqsEnvelope }))
  .handler((tasks, context) =>
    evaluateShards({ plan, metrics, findings: new DynamoDbShardFindings(table, context.awsRequestId) }, tasks),
  );
