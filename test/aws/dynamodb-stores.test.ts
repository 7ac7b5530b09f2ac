import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { MalformedItemError } from '../../aws/dynamodb/table-items.ts';
import { openIncidentKey, pollLogKey, stepKey } from '../../aws/dynamodb/table-keys.ts';
import type { Incident } from '../../shared/engine/incident.ts';
import type { PipelineStores, PollRecord } from '../../shared/pipeline/ports.ts';
import { StepQuarantinedError } from '../../shared/pipeline/step-claim.ts';
import { type AwsHarness, clearTable, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { pollsBetween } from '../digest/digest-fixtures.ts';
import { notificationAt } from '../support/engine-fixtures.ts';

const DAY = 86_400_000;
const WEEK_START = Date.parse('2026-11-09T00:00:00Z');
const WEEK_END = WEEK_START + 7 * DAY;

const incident = (fields: Partial<Incident>): Incident => ({
  id: `dev-a/webhook-blackhole/${fields.openedAt}`,
  cluster: 'dev-a',
  rule: 'webhook-blackhole',
  severity: 'page',
  status: 'open',
  openedAt: '2026-11-08T23:50:00Z',
  symptoms: [],
  flaps: 0,
  paged: true,
  notifications: 1,
  reminders: 0,
  evidence: {},
  ...fields,
});

describe('the DynamoDB stores', () => {
  let harness: AwsHarness;
  let stores: PipelineStores;
  let now = WEEK_END + DAY;

  beforeAll(async () => {
    harness = await startAwsHarness();
    stores = dynamoDbStores({ client: documentClient(), table: TABLE, now: () => now });
  });

  beforeEach(async () => {
    await clearTable(harness.dynamoEndpoint);
  });

  afterAll(async () => {
    await harness.close();
  });

  const record = async (at: number, changed: Incident[], notifications = [] as ReturnType<typeof notificationAt>[]) => {
    expect(await stores.ledger.claimStep(at, 'test', now + 60_000)).toBe('claimed');
    await stores.ledger.recordStep({ at, changed, notifications }, 'test');
  };

  it('reads an incident opened before the week and resolved during it as part of the week', async () => {
    const opened = incident({});
    await record(WEEK_START - 10 * 60_000, [opened]);
    await record(WEEK_START + 30 * 60_000, [{ ...opened, status: 'resolved', resolvedAt: '2026-11-09T00:30:00Z' }]);

    const { incidents } = await stores.activityLog.activityBetween(WEEK_START, WEEK_END);

    expect(incidents.map((i) => [i.id, i.status])).toEqual([[opened.id, 'resolved']]);
  });

  it('reads an incident still open, opened weeks before', async () => {
    await record(WEEK_START - 20 * DAY, [incident({ openedAt: '2026-10-20T10:00:00Z' })]);

    const { incidents } = await stores.activityLog.activityBetween(WEEK_START, WEEK_END);

    expect(incidents.map((i) => i.openedAt)).toEqual(['2026-10-20T10:00:00Z']);
  });

  it('keeps a notification in the week it was raised when a retry delivers it the week after', async () => {
    const late = notificationAt({ at: '2026-11-15T23:59:00Z', kind: 'page', rule: 'webhook-blackhole' });
    await record(Date.parse(late.at), [], [late]);
    now = WEEK_END + 2 * 3_600_000;
    expect(await stores.outbox.claimDelivery(late.id, 'test', now + 60_000)).toBe(true);
    await stores.outbox.markDelivered(late.id, 'message-1', now);

    const [thisWeek, nextWeek] = await Promise.all([
      stores.activityLog.activityBetween(WEEK_START, WEEK_END),
      stores.activityLog.activityBetween(WEEK_END, WEEK_END + 7 * DAY),
    ]);

    expect([thisWeek.notifications.map((n) => [n.notification.id, n.status]), nextWeek.notifications]).toEqual([
      [[late.id, 'delivered']],
      [],
    ]);
  });

  it('keeps the outcome committed first when the lease of a step ran out under its writer', async () => {
    const at = WEEK_END - 60_000;
    const first = notificationAt({ at: '2026-11-15T23:59:00Z', kind: 'page', rule: 'webhook-blackhole' });
    const second = { ...first, id: `${first.id}/second` };
    expect(await stores.ledger.claimStep(at, 'first', now + 60_000)).toBe('claimed');
    now += 120_000;
    expect(await stores.ledger.claimStep(at, 'second', now + 60_000)).toBe('claimed');
    await stores.ledger.recordStep({ at, changed: [], notifications: [first] }, 'first');

    const committed = await stores.ledger.recordStep({ at, changed: [], notifications: [second] }, 'second');

    expect([committed.map((n) => n.id), (await stores.outbox.pending()).map((p) => p.notification.id)]).toEqual([
      [first.id],
      [first.id],
    ]);
  });

  it('names the item and what is wrong with it when an open incident does not decode', async () => {
    const { cluster: _cluster, ...withoutCluster } = incident({});
    await documentClient().send(
      new PutCommand({ TableName: TABLE, Item: { ...openIncidentKey(withoutCluster.id), incident: withoutCluster } }),
    );

    const reading = stores.incidents.openIncidents();

    await expect(reading).rejects.toThrow(MalformedItemError);
    await expect(reading).rejects.toThrow(
      `table item {"pk":"OPEN","sk":"${withoutCluster.id}"} cannot be read:\n  - $.incident.cluster: `,
    );
  });

  it('reads the poll records of a period, those of earlier releases with their day index entry among them', async () => {
    const poll = (at: number, owner: string): PollRecord => ({ ...onePoll(at), owner });
    // As earlier releases wrote a poll record: with the byDay index entry it was read by.
    const earlier = poll(WEEK_START, 'earlier');
    await documentClient().send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          pk: 'POLLLOG',
          sk: `${new Date(WEEK_START).toISOString()}#earlier`,
          day: 'POLL#2026-11-09',
          at: new Date(WEEK_START).toISOString(),
          record: earlier,
          expiresAt: Math.floor(WEEK_END / 1000),
        },
      }),
    );
    for (const at of [WEEK_START - 60_000, WEEK_START + DAY, WEEK_END - 60_000, WEEK_END]) {
      await stores.activityLog.recordPoll(poll(at, 'today'));
    }
    const written = await documentClient().send(
      new GetCommand({ TableName: TABLE, Key: pollLogKey(WEEK_START + DAY, 'today') }),
    );

    const { polls } = await stores.activityLog.activityBetween(WEEK_START, WEEK_END);

    expect([polls.map((p) => [new Date(p.at).toISOString(), p.owner]), written.Item?.day]).toEqual([
      [
        ['2026-11-09T00:00:00.000Z', 'earlier'],
        ['2026-11-10T00:00:00.000Z', 'today'],
        ['2026-11-15T23:59:00.000Z', 'today'],
      ],
      undefined,
    ]);
  });

  it('quarantines a step whose outcome, held in its header, the table refuses for good, and claims the next', async () => {
    const at = WEEK_END;
    // An incident without an id: its key's sort key would be empty, which DynamoDB refuses (ValidationException).
    const refused = incident({ id: '', openedAt: '2026-11-15T23:00:00Z' });
    await stores.ledger.claimStep(at, 'a', now + 60_000);

    const recording = stores.ledger.recordStep({ at, changed: [refused], notifications: [] }, 'a');

    await expect(recording).rejects.toThrow(StepQuarantinedError);
    const { Item } = await documentClient().send(new GetCommand({ TableName: TABLE, Key: stepKey(at) }));
    expect([
      typeof Item?.payload,
      Item?.quarantined,
      await stores.ledger.claimStep(at + 60_000, 'b', now + 60_000),
    ]).toEqual(['string', expect.stringMatching(/^ValidationException: /), 'claimed']);
  });
});

function onePoll(at: number): PollRecord {
  const [record] = pollsBetween(at, at + 60_000);
  if (!record) throw new Error('pollsBetween gave no poll record');
  return record;
}
