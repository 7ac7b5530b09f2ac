import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { DynamoDbNodeChurnLedger } from '../../aws/dynamodb/node-churn-ledger.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { nodeChurnTripwireKey, stepKey } from '../../aws/dynamodb/table-keys.ts';
import { ITEM_BYTES } from '../../aws/dynamodb/table-limits.ts';
import type { Incident } from '../../shared/engine/incident.ts';
import type { NearMiss } from '../../shared/engine/near-miss.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { keptBlindTripwires, keptNearMisses, POLL_RECORD_LIST_MAX } from '../../shared/pipeline/poll-record.ts';
import type { PipelineStores } from '../../shared/pipeline/ports.ts';
import { StepQuarantinedError } from '../../shared/pipeline/step-claim.ts';
import { isoSeconds } from '../../shared/time.ts';
import { type AwsHarness, clearTable, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { notificationAt } from '../support/engine-fixtures.ts';

const NOW = Date.parse('2026-11-20T10:00:00Z');
const AT = NOW - 180_000;
const LEASE = NOW + 60_000;
/** The largest fleet the configuration accepts (shared/config/fleet-limits.ts), each cluster with a long name. */
const FLEET = 10_000;
const clusterName = (i: number) => `prod-${String(i).padStart(5, '0')}-${'x'.repeat(80)}`;

/** A fleet outage's page: every cluster with its evidence, some megabytes of JSON. */
function fleetPage(clusters: number): Notification {
  const names = Array.from({ length: clusters }, (_, i) => clusterName(i));
  return {
    ...notificationAt({ at: isoSeconds(AT), kind: 'page', rule: 'webhook-blackhole' }),
    clusters: names,
    incidents: names.map((c) => `${c}/webhook-blackhole/${isoSeconds(AT)}`),
    evidence: names.map((cluster) => ({
      cluster,
      incident: `${cluster}/webhook-blackhole/${isoSeconds(AT)}`,
      rule: 'webhook-blackhole',
      items: [
        { what: 'webhook.failures', over: '5m', observed: 412, op: '>', threshold: 5, unit: 'count', passed: true },
        { what: 'apiserver.p99', over: '5m', observed: 9.7, op: '>', threshold: 1, unit: 's', passed: true },
      ],
    })),
  };
}

describe('every item of the table within DynamoDB’s 400 KB', () => {
  let harness: AwsHarness;
  let stores: PipelineStores;
  let now = NOW;

  beforeAll(async () => {
    harness = await startAwsHarness();
  });

  beforeEach(async () => {
    now = NOW;
    await clearTable(harness.dynamoEndpoint);
    stores = dynamoDbStores({ client: documentClient(), table: TABLE, now: () => now });
  });

  afterAll(async () => {
    await harness.close();
  });

  it('stores a page listing every cluster of the largest fleet, in parts, and reads it back whole', async () => {
    const page = fleetPage(FLEET);
    expect(JSON.stringify(page).length).toBeGreaterThan(10 * ITEM_BYTES);
    await stores.ledger.claimStep(AT, 'a', LEASE);
    await stores.ledger.recordStep({ at: AT, changed: [], notifications: [page] }, 'a');

    const [pending] = await stores.outbox.pending();
    const [record] = await stores.outbox.raisedBetween(AT - 60_000, AT + 60_000);

    expect([pending?.notification, record?.notification]).toEqual([page, page]);
  });

  it('goes on to the next step after a fleet outage of 700 clusters, and pages an unrelated cluster later', async () => {
    await stores.ledger.claimStep(AT, 'a', LEASE);
    await stores.ledger.recordStep({ at: AT, changed: [], notifications: [fleetPage(700)] }, 'a');
    now += 3_600_000;
    const later = AT + 3_600_000;
    const unrelated = {
      ...notificationAt({ at: isoSeconds(later), kind: 'page', rule: 'etcd-quota' }),
      clusters: ['dev-b'],
    };

    const claim = await stores.ledger.claimStep(later, 'b', now + 60_000);
    await stores.ledger.recordStep({ at: later, changed: [], notifications: [unrelated] }, 'b');

    expect([claim, (await stores.outbox.pending()).map((p) => p.notification.rule)]).toEqual([
      'claimed',
      ['webhook-blackhole', 'etcd-quota'],
    ]);
  });

  it('quarantines a step the table refuses for good, names it, and claims the next one', async () => {
    const huge: Incident = {
      id: 'dev-a/webhook-blackhole/x',
      cluster: 'dev-a',
      rule: 'webhook-blackhole',
      severity: 'page',
      status: 'open',
      openedAt: isoSeconds(AT),
      symptoms: ['x'.repeat(ITEM_BYTES)],
      flaps: 0,
      paged: true,
      notifications: 1,
      reminders: 0,
      evidence: {},
    };
    await stores.ledger.claimStep(AT, 'a', LEASE);

    const recording = stores.ledger.recordStep({ at: AT, changed: [huge], notifications: [] }, 'a');

    await expect(recording).rejects.toThrow(StepQuarantinedError);
    const { Item } = await documentClient().send(new GetCommand({ TableName: TABLE, Key: stepKey(AT) }));
    expect([Item?.quarantined, await stores.ledger.claimStep(AT + 60_000, 'b', LEASE)]).toEqual([
      expect.stringMatching(/^ValidationException: .*size/i),
      'claimed',
    ]);
  });

  it('stores a poll record at its largest: every list full, the error at its longest', async () => {
    const misses: NearMiss[] = Array.from({ length: 5_000 }, (_, i) => ({
      cluster: clusterName(i),
      rule: `custom-rule-${'r'.repeat(60)}`,
      closest: { what: 'webhook.p99', over: '5m', observed: 0.9, op: '>', threshold: 1, unit: 's', passed: false },
      distance: (i % 100) / 1000,
    }));
    const kept = keptNearMisses(misses);
    const blind = keptBlindTripwires(misses.map((m) => m.cluster));
    await stores.activityLog.recordPoll({
      at: AT,
      owner: 'o'.repeat(64),
      claim: 'claimed',
      startedAt: NOW,
      lateMs: 0,
      durationMs: 1,
      clusters: FLEET,
      polled: FLEET,
      metricsRequested: 1,
      findings: 0,
      created: 0,
      delivered: 0,
      deliveryFailures: 0,
      unreadableClusters: 0,
      ...blind,
      ...kept,
      quarantinedSteps: [AT],
      error: 'e'.repeat(1000),
    });

    const { polls } = await stores.activityLog.activityBetween(AT - 60_000, AT + 60_000);

    expect([polls[0]?.nearMisses.length, polls[0]?.nearMissesOmitted, polls[0]?.blindTripwiresOmitted]).toEqual([
      POLL_RECORD_LIST_MAX,
      5_000 - POLL_RECORD_LIST_MAX,
      5_000 - POLL_RECORD_LIST_MAX,
    ]);
  });
});

describe('the node-churn arming of a cluster', () => {
  let harness: AwsHarness;
  const ledger = () => new DynamoDbNodeChurnLedger(documentClient(), TABLE);
  const repairsItem = async (cluster: string) =>
    (await documentClient().send(new GetCommand({ TableName: TABLE, Key: nodeChurnTripwireKey(cluster) }))).Item;

  beforeAll(async () => {
    harness = await startAwsHarness();
  });

  beforeEach(async () => {
    await clearTable(harness.dynamoEndpoint);
  });

  afterAll(async () => {
    await harness.close();
  });

  it('moves its expiry with each repair while repairs trickle in', async () => {
    // One repair every 20 minutes: never three in 30 minutes, so it never arms, but each may still count.
    for (let i = 0; i < 6; i++) {
      const at = NOW + i * 20 * 60_000;
      await ledger().notePossibleRepair({ cluster: 'dev-a', instanceId: `i-${i}`, at, reason: 'unhealthy' }, at);
    }
    const last = NOW + 5 * 20 * 60_000;

    expect((await repairsItem('dev-a'))?.expiresAt).toBeGreaterThanOrEqual(Math.floor(last / 1000) + 30 * 60);
  });

  it('keeps at most a hundred repairs however many nodes a fleet-wide replacement terminates in the window', async () => {
    for (let i = 0; i < 150; i++) {
      const at = NOW + i * 1_000;
      await ledger().notePossibleRepair({ cluster: 'dev-a', instanceId: `i-${i}`, at, reason: 'unhealthy' }, at);
    }
    const item = await repairsItem('dev-a');

    expect([(item?.repairs as Set<string> | undefined)?.size, item?.state]).toEqual([100, 'ALARM']);
  });
});
