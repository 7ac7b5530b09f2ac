import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { DynamoDbTable } from '../../aws/dynamodb/table.ts';
import { PARTITION, stepKey, stepPartKey } from '../../aws/dynamodb/table-keys.ts';
import { PART_BYTES } from '../../aws/dynamodb/table-limits.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { INCIDENTS_PER_MARK } from '../../shared/pipeline/apply-step.ts';
import { isoSeconds } from '../../shared/time.ts';
import { type AwsHarness, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { dyingAtFirstOutboxWrite, type FaultPlan, faultyClients } from '../../support/store-faults.ts';
import { notificationAt, openIncident } from '../support/engine-fixtures.ts';

describe('a step whose writer dies after committing it', () => {
  let harness: AwsHarness;

  beforeAll(async () => {
    harness = await startAwsHarness();
  });

  afterAll(async () => {
    await harness.close();
  });

  it('is rolled forward by its retry, in several gzipped parts, and never evaluated again', async () => {
    let now = Date.parse('2026-11-20T10:00:00Z');
    const at = now - 180_000;
    // 500 notifications of 750 random bytes each, which gzip cannot shrink: over 300 KB gzipped, two parts.
    const notifications: Notification[] = Array.from({ length: 500 }, (_, i) => ({
      ...notificationAt({ at: isoSeconds(at), kind: 'page', rule: 'webhook-blackhole' }),
      id: `${isoSeconds(at)}/page/webhook-blackhole/${i}`,
      summary: randomBytes(750).toString('base64'),
    }));
    const dying = dynamoDbStores({ client: faultyClients(dyingAtFirstOutboxWrite())(), table: TABLE, now: () => now });
    expect(await dying.ledger.claimStep(at, 'first', now + 60_000)).toBe('claimed');
    await expect(dying.ledger.recordStep({ at, changed: [], notifications }, 'first')).rejects.toThrow(
      'Task timed out',
    );
    const { Item: header } = await documentClient().send(new GetCommand({ TableName: TABLE, Key: stepKey(at) }));

    now += 120_000;
    const retry = dynamoDbStores({ client: documentClient(), table: TABLE, now: () => now });
    const claim = await retry.ledger.claimStep(at, 'first-retry', now + 60_000);

    expect([header?.gzippedParts, claim, (await retry.outbox.pending()).length]).toEqual([2, 'done', 500]);
  });

  it('is rolled forward from the JSON itself in parts, as 0.1.0 wrote a large outcome', async () => {
    let now = Date.parse('2026-11-20T10:30:00Z');
    const at = now - 180_000;
    const notifications: Notification[] = Array.from({ length: 400 }, (_, i) => ({
      ...notificationAt({ at: isoSeconds(at), kind: 'page', rule: 'webhook-blackhole' }),
      id: `${isoSeconds(at)}/page/webhook-blackhole/fleet-${i}`,
      summary: 'x'.repeat(1000),
    }));
    const table = new DynamoDbTable({ client: documentClient(), table: TABLE, now: () => now });
    const writer = dynamoDbStores({ client: documentClient(), table: TABLE, now: () => now });
    expect(await writer.ledger.claimStep(at, 'first', now + 60_000)).toBe('claimed');
    const expiresAt = table.expiresAt(now);
    // ASCII JSON, so that slices of PART_BYTES characters are slices of as many bytes.
    const json = JSON.stringify({ at, changed: [], notifications });
    const slices = Array.from({ length: Math.ceil(json.length / PART_BYTES) }, (_, part) =>
      json.slice(part * PART_BYTES, (part + 1) * PART_BYTES),
    );
    for (const [part, payload] of slices.entries()) {
      await documentClient().send(
        new PutCommand({ TableName: TABLE, Item: { ...stepPartKey(at, 'first', part), payload, expiresAt } }),
      );
    }
    await documentClient().send(
      new PutCommand({ TableName: TABLE, Item: { ...stepKey(at), parts: slices.length, owner: 'first', expiresAt } }),
    );

    now += 120_000;
    const retry = dynamoDbStores({ client: documentClient(), table: TABLE, now: () => now });
    const claim = await retry.ledger.claimStep(at, 'first-retry', now + 60_000);

    expect([slices.length, claim, (await pendingAt(retry, at)).length]).toEqual([2, 'done', 400]);
  });

  it('is rolled forward from its header alone when its outcome fits there, with no part beside it', async () => {
    let now = Date.parse('2026-11-20T11:00:00Z');
    const at = now - 180_000;
    const page = notificationAt({ at: isoSeconds(at), kind: 'page', rule: 'webhook-blackhole' });
    const dying = dynamoDbStores({ client: faultyClients(dyingAtFirstOutboxWrite())(), table: TABLE, now: () => now });
    expect(await dying.ledger.claimStep(at, 'first', now + 60_000)).toBe('claimed');
    await expect(dying.ledger.recordStep({ at, changed: [], notifications: [page] }, 'first')).rejects.toThrow(
      'Task timed out',
    );
    const parts = await documentClient().send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :at)',
        ExpressionAttributeValues: { ':pk': stepKey(at).pk, ':at': stepKey(at).sk },
      }),
    );

    now += 120_000;
    const retry = dynamoDbStores({ client: documentClient(), table: TABLE, now: () => now });
    const claim = await retry.ledger.claimStep(at, 'first-retry', now + 60_000);

    expect([parts.Items?.map((item) => Object.keys(item).sort()), claim, await pendingAt(retry, at)]).toEqual([
      [['expiresAt', 'owner', 'payload', 'pk', 'sk']],
      'done',
      [page.id],
    ]);
  });

  it('hands its notifications over before writing its incidents, and a death at the incidents is rolled forward', async () => {
    let now = Date.parse('2026-11-20T12:30:00Z');
    const at = now - 180_000;
    const page = notificationAt({ at: isoSeconds(at), kind: 'page', rule: 'webhook-blackhole' });
    const incident = openIncident('dev-a', 'webhook-blackhole', 0, { id: `dev-a/webhook-blackhole/${at}` });
    const order: string[] = [];
    let died = false;
    const dyingAtOpenIncident: FaultPlan = (request) => {
      if (died || request.Item?.pk !== PARTITION.open) return undefined;
      died = true;
      order.push('incident write');
      return 'die';
    };
    const dying = dynamoDbStores({ client: faultyClients(dyingAtOpenIncident)(), table: TABLE, now: () => now });
    expect(await dying.ledger.claimStep(at, 'first', now + 60_000)).toBe('claimed');
    const recording = dying.ledger.recordStep(
      { at, changed: [incident], notifications: [page] },
      'first',
      async (queued) => {
        order.push(...queued.map((n) => `deliver ${n.id}`));
      },
    );
    await expect(recording).rejects.toThrow('Task timed out');

    now += 120_000;
    const retry = dynamoDbStores({ client: documentClient(), table: TABLE, now: () => now });
    const claim = await retry.ledger.claimStep(at, 'first-retry', now + 60_000);

    expect([order, claim, (await retry.incidents.openIncidents()).map((i) => i.id)]).toEqual([
      [`deliver ${page.id}`, 'incident write'],
      'done',
      expect.arrayContaining([incident.id]),
    ]);
  });

  it('resumes a death in the middle of its incidents at the last mark, not at the first incident', async () => {
    let now = Date.parse('2026-11-20T13:00:00Z');
    const at = now - 180_000;
    // A fleet outage's step: an incident on each of 300 clusters, more than one mark's worth.
    const incidents = Array.from({ length: INCIDENTS_PER_MARK + 50 }, (_, i) =>
      openIncident(`fleet-${i}`, 'webhook-blackhole', 0, { id: `fleet-${i}/webhook-blackhole/${at}` }),
    );
    let openWrites = 0;
    const dyingPastTheMark: FaultPlan = (request) => {
      if (request.Item?.pk !== PARTITION.open) return undefined;
      openWrites++;
      return openWrites === INCIDENTS_PER_MARK + 20 ? 'die' : undefined;
    };
    const dying = dynamoDbStores({ client: faultyClients(dyingPastTheMark)(), table: TABLE, now: () => now });
    expect(await dying.ledger.claimStep(at, 'first', now + 60_000)).toBe('claimed');
    await expect(dying.ledger.recordStep({ at, changed: incidents, notifications: [] }, 'first')).rejects.toThrow(
      'Task timed out',
    );
    const writtenBeforeDeath = openWrites;

    now += 120_000;
    const resumed = openWriteCount();
    const retry = dynamoDbStores({ client: faultyClients(resumed.plan)(), table: TABLE, now: () => now });
    const claim = await retry.ledger.claimStep(at, 'first-retry', now + 60_000);
    const open = new Set((await retry.incidents.openIncidents()).map((i) => i.id));

    expect([claim, resumed.writes(), incidents.every((i) => open.has(i.id))]).toEqual(['done', 50, true]);
    expect(writtenBeforeDeath).toBeGreaterThan(INCIDENTS_PER_MARK);
  });

  it('stops at the mark after its time runs out, and the next poll saves only the rest', async () => {
    let now = Date.parse('2026-11-20T13:30:00Z');
    const at = now - 180_000;
    const writeUntil = now + 10_000;
    const incidents = Array.from({ length: INCIDENTS_PER_MARK + 50 }, (_, i) =>
      openIncident(`fleet-${i}`, 'webhook-blackhole', 0, { id: `fleet-${i}/webhook-blackhole/${at}` }),
    );
    // The time runs out while the first batch is written: that batch is finished and marked, and no other begins.
    let openWrites = 0;
    const slowing: FaultPlan = (request) => {
      if (request.Item?.pk === PARTITION.open && ++openWrites === 100) now = writeUntil;
      return undefined;
    };
    const writer = dynamoDbStores({ client: faultyClients(slowing)(), table: TABLE, now: () => now });
    expect(await writer.ledger.claimStep(at, 'first', now + 60_000)).toBe('claimed');
    const stopped = await writer.ledger
      .recordStep({ at, changed: incidents, notifications: [] }, 'first', undefined, writeUntil)
      .catch((error: unknown) => error);
    const writtenInTime = openWrites;

    now += 1_000;
    const resumed = openWriteCount();
    const next = dynamoDbStores({ client: faultyClients(resumed.plan)(), table: TABLE, now: () => now });
    const claim = await next.ledger.claimStep(at + 60_000, 'second', now + 60_000);
    const open = new Set((await next.incidents.openIncidents()).map((i) => i.id));

    expect(stopped).toMatchObject({
      name: 'StepUnfinishedError',
      unfinished: { step: at, saved: INCIDENTS_PER_MARK, changed: incidents.length },
    });
    expect([writtenInTime, claim, resumed.writes(), incidents.every((i) => open.has(i.id))]).toEqual([
      INCIDENTS_PER_MARK,
      'claimed',
      50,
      true,
    ]);
  });

  it('is rolled forward from parts when an earlier release wrote a small outcome in parts', async () => {
    let now = Date.parse('2026-11-20T12:00:00Z');
    const at = now - 180_000;
    const page = notificationAt({ at: isoSeconds(at), kind: 'page', rule: 'webhook-blackhole' });
    const writer = dynamoDbStores({ client: documentClient(), table: TABLE, now: () => now });
    expect(await writer.ledger.claimStep(at, 'first', now + 60_000)).toBe('claimed');
    // What the ledger wrote before it held outcomes in the header: one part, then a header that counts it.
    const db = documentClient();
    const expiresAt = Math.floor(now / 1000) + 86_400;
    const payload = JSON.stringify({ at, changed: [], notifications: [page] });
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...stepPartKey(at, 'first', 0), payload, expiresAt } }));
    await db.send(new PutCommand({ TableName: TABLE, Item: { ...stepKey(at), parts: 1, owner: 'first', expiresAt } }));

    now += 120_000;
    const retry = dynamoDbStores({ client: documentClient(), table: TABLE, now: () => now });
    const claim = await retry.ledger.claimStep(at, 'first-retry', now + 60_000);

    expect([claim, await pendingAt(retry, at)]).toEqual(['done', [page.id]]);
  });
});

/** The ids of the notifications of step `at` waiting in the outbox: the tests share one table. */
async function pendingAt(stores: ReturnType<typeof dynamoDbStores>, at: number): Promise<string[]> {
  const pending = await stores.outbox.pending();
  return pending.map((p) => p.notification.id).filter((id) => id.startsWith(isoSeconds(at)));
}

/** A fault plan that only counts the writes into `OPEN`: how many incidents a roll-forward saved. */
function openWriteCount(): { readonly plan: FaultPlan; writes(): number } {
  let writes = 0;
  return {
    plan: (request) => {
      if (request.Item?.pk === PARTITION.open) writes++;
      return undefined;
    },
    writes: () => writes,
  };
}
