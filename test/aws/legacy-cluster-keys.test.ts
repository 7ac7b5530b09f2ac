import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { DynamoDbNodeChurnReader } from '../../aws/dynamodb/node-churn-reader.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { DynamoDbTable } from '../../aws/dynamodb/table.ts';
import { DynamoDbTripwires } from '../../aws/dynamodb/tripwires.ts';
import { type LoadedConfig, loadConfig } from '../../shared/config/deployment-config.ts';
import type { Incident } from '../../shared/engine/incident.ts';
import { clusterMuted } from '../../shared/engine/maintenance.ts';
import { configuredPlan } from '../../shared/pipeline/build-plan.ts';
import { type AwsHarness, clearTable, startAwsHarness, TABLE } from '../../support/aws-harness.ts';

/*
 * Items as deployments wrote them while a cluster was known by its EKS name alone, put into dynalite with their keys
 * and attributes spelt out (not through today's key builders, which could move with them): an open incident, a
 * tripwire in ALARM, a node termination and a silence that names its cluster. A deployment upgraded in place reads
 * them for the same cluster, and still does once a cluster of the same name joins in another account, provided the
 * existing one keeps its name as its display name (docs/configuration.md says so).
 */
const T = Date.parse('2026-11-20T10:00:00Z');
const MINUTE = 60_000;
const OPS = { accountId: '111122223333', region: 'eu-west-1' };
const opened: Incident = {
  id: 'prod-euw1/webhook-blackhole/2026-11-20T10:00:00Z',
  cluster: 'prod-euw1',
  rule: 'webhook-blackhole',
  severity: 'page',
  status: 'open',
  openedAt: '2026-11-20T10:00:00Z',
  symptoms: [],
  flaps: 0,
  paged: true,
  notifications: 1,
  reminders: 0,
  evidence: {},
};

async function putTodaysItems(): Promise<void> {
  const expiresAt = Math.floor(T / 1000) + 86_400;
  const items = [
    { pk: 'OPEN', sk: opened.id, incident: opened, appliedStep: T, expiresAt },
    { pk: 'TRIPWIRE', sk: 'prod-euw1', state: 'ALARM', changedAt: T, expiresAt },
    {
      pk: 'NODES#prod-euw1',
      sk: `${new Date(T + 3 * MINUTE).toISOString()}#i-0aaaaaaaaaaaaaaa1`,
      cluster: 'prod-euw1',
      instanceId: 'i-0aaaaaaaaaaaaaaa1',
      minute: T + 3 * MINUTE,
      reason: 'unhealthy',
      expiresAt,
    },
    {
      pk: 'SILENCE',
      sk: `${new Date(T + 120 * MINUTE).toISOString()}#s-1`,
      silence: { id: 's-1', cluster: 'prod-euw1', from: T, to: T + 120 * MINUTE, reason: 'upgrade', author: 'arn:me' },
      expiresAt,
    },
  ];
  for (const Item of items) await documentClient().send(new PutCommand({ TableName: TABLE, Item }));
}

/** What the upgraded deployment reads of each kind of item, for its cluster whose display name is `cluster`. */
async function readBack(loaded: LoadedConfig, cluster: string) {
  const options = { client: documentClient(), table: TABLE, now: () => T + 5 * MINUTE };
  const stores = dynamoDbStores(options);
  const plan = configuredPlan(loaded);
  const watched = plan.clusters.find((c) => c.name === cluster);
  const silences = await stores.silences.endingAfter(T + 5 * MINUTE);
  return {
    open: (await stores.incidents.openIncidents()).map((i) => i.cluster),
    watched: watched !== undefined,
    armed: [...(await new DynamoDbTripwires(new DynamoDbTable(options)).armed(T + MINUTE)).byAlarm],
    terminations: (
      await new DynamoDbNodeChurnReader(new DynamoDbTable(options)).terminations(cluster, T, T + 10 * MINUTE)
    ).length,
    silenced: clusterMuted(silences, cluster, T + 5 * MINUTE, watched?.labels),
  };
}

describe('items stored while clusters were keyed by their EKS name', () => {
  let harness: AwsHarness;

  beforeAll(async () => {
    harness = await startAwsHarness();
  });

  beforeEach(async () => {
    await clearTable(harness.dynamoEndpoint);
    await putTodaysItems();
  });

  afterAll(async () => {
    await harness.close();
  });

  it('are read for the same cluster after the upgrade: its incident, tripwire, node churn and silence', async () => {
    const loaded = loadConfig({ ops: OPS, clusters: [{ name: 'prod-euw1' }] }, 'sentinel.json');

    expect(await readBack(loaded, 'prod-euw1')).toEqual({
      open: ['prod-euw1'],
      watched: true,
      armed: ['prod-euw1'],
      terminations: 1,
      silenced: true,
    });
  });

  it('are still read for it when a cluster of the same name joins in another account, and only for it', async () => {
    const loaded = loadConfig(
      {
        ops: OPS,
        clusters: [
          { name: 'prod-euw1', displayName: 'prod-euw1' },
          { name: 'prod-euw1', accountId: '444455556666', region: 'eu-west-1' },
        ],
      },
      'sentinel.json',
    );
    const newcomer = 'prod-euw1@444455556666/eu-west-1';

    expect(await readBack(loaded, 'prod-euw1')).toMatchObject({ watched: true, terminations: 1, silenced: true });
    expect(await readBack(loaded, newcomer)).toMatchObject({ watched: true, terminations: 0, silenced: false });
  });
});
