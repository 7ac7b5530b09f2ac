import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudWatchClient, type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { documentClient } from '../aws/clients.ts';
import { DynamoDbNodeChurnLedger } from '../aws/dynamodb/node-churn-ledger.ts';
import { TABLE_SCHEMA } from '../aws/dynamodb/table-schema.ts';
import { countsNodeChurn } from '../shared/churn/node-termination.ts';
import { displayNameOf } from '../shared/config/cluster-identity.ts';
import type { ClusterConfig } from '../shared/config/deployment-config.ts';
import type { SignalName } from '../shared/engine/signals.ts';
import { signalSources } from '../shared/pipeline/query-plan.ts';
import type { Scenario } from '../shared/scenario/scenario.ts';
import { type CloudWatchServer, startCloudWatchServer } from './cloudwatch-server.ts';
import { startDynaliteProcess } from './dynalite-process.ts';
import { type SnsServer, startSnsServer } from './sns-server.ts';

export const TABLE = 'sentinel-test';
const CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' };

/** Loopback CloudWatch, SNS and DynamoDB (dynalite), with the SDK's endpoint variables pointing at them. */
export interface AwsHarness {
  readonly cloudwatch: CloudWatchServer;
  readonly sns: SnsServer;
  readonly dynamoEndpoint: string;
  readonly topics: { paging: string; notice: string; digest: string };
  /** Stops the servers; dynalite in a child process says its peak resident set size. */
  close(): Promise<{ readonly peakRssMb?: number }>;
}

export async function startAwsHarness(options: { readonly dynamoInChildProcess?: boolean } = {}): Promise<AwsHarness> {
  const cloudwatch = await startCloudWatchServer({ acceptVendedNamespaces: true });
  const sns = await startSnsServer();
  const dynamo = options.dynamoInChildProcess ? await startDynaliteProcess() : await startDynalite();
  const dynamoEndpoint = dynamo.endpoint;
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_CLOUDWATCH: cloudwatch.endpoint,
    AWS_ENDPOINT_URL_SNS: sns.endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
  });
  await createTable(dynamoEndpoint);
  const topics = {
    paging: sns.createTopic('paging'),
    notice: sns.createTopic('notice'),
    digest: sns.createTopic('digest'),
  };
  return {
    cloudwatch,
    sns,
    dynamoEndpoint,
    topics,
    close: async () => {
      const [, , stopped] = await Promise.all([cloudwatch.close(), sns.close(), dynamo.close()]);
      return stopped ?? {};
    },
  };
}

/** dynalite in this process: cheapest to start, for tests whose writes are few. */
async function startDynalite(): Promise<{ endpoint: string; close(): Promise<undefined> }> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<undefined>((resolve) => server.close(() => resolve(undefined))),
  };
}

export async function createTable(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: CREDENTIALS });
  const { partitionKey, sortKey, dayIndex } = TABLE_SCHEMA;
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [partitionKey, sortKey, dayIndex.partitionKey, dayIndex.sortKey].map((name) => ({
        AttributeName: name,
        AttributeType: 'S',
      })),
      KeySchema: [
        { AttributeName: partitionKey, KeyType: 'HASH' },
        { AttributeName: sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: [
        {
          IndexName: dayIndex.name,
          KeySchema: [
            { AttributeName: dayIndex.partitionKey, KeyType: 'HASH' },
            { AttributeName: dayIndex.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
  client.destroy();
}

/** A deployment configuration file for the harness, written to a temporary folder. */
export function writeConfig(config: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'sentinel-')), 'sentinel.config.json');
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/**
 * Load a scenario into CloudWatch with PutMetricData through the real SDK: each signal's values go to the first
 * metric its source profile reads, which is all a max or a sum over the profile's metrics needs.
 */
export async function putScenario(scenario: Scenario, clusters: readonly ClusterConfig[]): Promise<number> {
  const client = new CloudWatchClient({});
  const byNamespace = new Map<string, MetricDatum[]>();
  for (const cluster of clusters) {
    const series = scenario.clusters.get(displayNameOf(cluster));
    if (!series) continue;
    for (const source of signalSources(cluster)) {
      const metric = source.metrics[0];
      const samples = series[source.signal as SignalName];
      if (!metric || !samples) continue;
      const data = byNamespace.get(metric.namespace) ?? [];
      byNamespace.set(metric.namespace, data);
      samples.forEach((value, index) => {
        if (value === null) return;
        data.push({
          MetricName: metric.metricName,
          Dimensions: Object.entries(metric.dimensions).map(([Name, Value]) => ({ Name, Value })),
          Timestamp: new Date(scenario.start + index * scenario.stepSeconds * 1000),
          Value: value,
        });
      });
    }
  }
  let calls = 0;
  for (const [namespace, data] of byNamespace) {
    for (let i = 0; i < data.length; i += 1000) {
      await client.send(new PutMetricDataCommand({ Namespace: namespace, MetricData: data.slice(i, i + 1000) }));
      calls++;
    }
  }
  client.destroy();
  await putNodeChurn(scenario, clusters);
  return calls;
}

/**
 * Node churn is not a CloudWatch metric: the node-churn function counts terminations into the table. A scenario's
 * `nodes.replaced` goes there as that many terminations in each minute, `nodes.interrupted` and `nodes.scaledin` as
 * that many of them with their reason, through the same ledger the function writes with.
 */
async function putNodeChurn(scenario: Scenario, clusters: readonly ClusterConfig[]): Promise<void> {
  const ledger = new DynamoDbNodeChurnLedger(documentClient(), TABLE);
  for (const cluster of clusters.filter(countsNodeChurn)) {
    const series = scenario.clusters.get(displayNameOf(cluster));
    const replaced = series?.['nodes.replaced'];
    if (!replaced) continue;
    for (let index = 0; index < replaced.length; index++) {
      const at = scenario.start + index * scenario.stepSeconds * 1000;
      const interrupted = series?.['nodes.interrupted']?.[index] ?? 0;
      const scaledIn = series?.['nodes.scaledin']?.[index] ?? 0;
      for (let n = 0; n < (replaced[index] ?? 0); n++) {
        const reason = n < interrupted ? 'spot-interruption' : n < interrupted + scaledIn ? 'scale-in' : 'unspecified';
        await ledger.count({ cluster: displayNameOf(cluster), instanceId: `i-${index}-${n}`, at, reason });
      }
    }
  }
}

/** Delete every item, so that each test starts from an empty store. */
export async function clearTable(endpoint: string): Promise<void> {
  const { ScanCommand, BatchWriteItemCommand } = await import('@aws-sdk/client-dynamodb');
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: CREDENTIALS });
  for (;;) {
    const { Items = [] } = await client.send(new ScanCommand({ TableName: TABLE, Limit: 25 }));
    if (Items.length === 0) break;
    await client.send(
      new BatchWriteItemCommand({
        RequestItems: {
          [TABLE]: Items.map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } })),
        } as never,
      }),
    );
  }
  client.destroy();
}
