import { BatchWriteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { DynamoDbNodeChurnLedger } from '../../aws/dynamodb/node-churn-ledger.ts';
import { DynamoDbTable } from '../../aws/dynamodb/table.ts';
import { PARTITION, tripwireKey } from '../../aws/dynamodb/table-keys.ts';
import { TABLE_SCHEMA } from '../../aws/dynamodb/table-schema.ts';
import { DynamoDbTripwireRecorder } from '../../aws/dynamodb/tripwire-recorder.ts';
import { DynamoDbTripwires } from '../../aws/dynamodb/tripwires.ts';
import { recordTripwire } from '../../functions/tripwire/tripwire-event.ts';
import { atMost } from '../../shared/at-most.ts';
import { MAX_FLEET_CLUSTERS } from '../../shared/config/fleet-size.ts';
import { type AwsHarness, clearTable, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { alarmEventFor } from '../../support/poller-harness.ts';
import { longClusterName } from '../notify/fleet-page.ts';

describe('tripwires in DynamoDB', () => {
  let harness: AwsHarness;
  let tripwires: DynamoDbTripwires;
  let recorder: DynamoDbTripwireRecorder;
  const warnings: unknown[] = [];
  /** The change as EventBridge delivers it, `delay` ms after the alarm changed state. */
  const record = (cluster: string, state: 'ALARM' | 'OK', at: number, delay = 5_000) =>
    recordTripwire(
      {
        tripwires: recorder,
        deployment: 'test',
        clusters: new Set(['dev-a', 'dev-b']),
        now: () => at + delay,
        logger: { warn: (...line: unknown[]) => warnings.push(line) },
      },
      alarmEventFor(cluster, state, at).detail,
    );

  /** The clusters whose tripwire alarm arms them at `at`. */
  const armedByAlarm = async (at: number) => [...(await tripwires.armed(at)).byAlarm];

  beforeAll(async () => {
    harness = await startAwsHarness();
    tripwires = new DynamoDbTripwires(new DynamoDbTable({ client: documentClient(), table: TABLE, now: Date.now }));
    recorder = new DynamoDbTripwireRecorder(documentClient(), TABLE);
  });

  beforeEach(async () => {
    await clearTable(harness.dynamoEndpoint);
    warnings.length = 0;
  });

  afterAll(async () => {
    await harness.close();
  });

  it('arms a cluster when its alarm goes to ALARM and disarms it on OK', async () => {
    await record('dev-a', 'ALARM', 1_000);
    const armed = await armedByAlarm(10_000);
    await record('dev-a', 'OK', 2_000);

    expect([armed, await armedByAlarm(10_000)]).toEqual([['dev-a'], []]);
  });

  it('keeps the newest state when EventBridge delivers an older change late, and says it ignored the older', async () => {
    await record('dev-b', 'ALARM', 5_000);
    const late = await record('dev-b', 'OK', 4_000, 3_000);

    expect([late.outcome, await armedByAlarm(10_000), warnings.length]).toEqual(['superseded', ['dev-b'], 1]);
  });

  it('refuses a state change dated in the future, so that the next real one still arms', async () => {
    const now = Date.parse('2026-11-23T09:00:00Z');
    const wedge = alarmEventFor('dev-a', 'OK', Date.parse('2099-01-01T00:00:00Z')).detail;
    const attempt = recordTripwire(
      {
        tripwires: recorder,
        deployment: 'test',
        clusters: new Set(['dev-a']),
        now: () => now,
        logger: { warn: () => undefined },
      },
      wedge,
    );

    await expect(attempt).rejects.toThrow(
      /^\$\.detail\.state\.timestamp: 2099-01-01T00:00:00.000Z is 7\d years ahead of this invocation's clock/,
    );
    await record('dev-a', 'ALARM', now - 10_000);
    expect(await armedByAlarm(now)).toEqual(['dev-a']);
  });

  it('refuses a state change whose timestamp is not a time, naming the field', async () => {
    const garbage = {
      alarmName: 'test-tripwire-dev-a',
      state: { value: 'ALARM' as const, timestamp: 'yesterday-ish' },
    };
    const attempt = recordTripwire(
      {
        tripwires: recorder,
        deployment: 'test',
        clusters: new Set(['dev-a']),
        now: Date.now,
        logger: { warn: () => undefined },
      },
      garbage,
    );

    await expect(attempt).rejects.toThrow('$.detail.state.timestamp: "yesterday-ish" is not a time');
  });

  it('overwrites a state an earlier version recorded from the future, instead of ignoring every real change', async () => {
    await recorder.record('dev-a', 'OK', Date.parse('2099-01-01T00:00:00Z'), Date.parse('2099-01-01T00:00:00Z'));
    const now = Date.parse('2026-11-23T09:00:00Z');

    const outcome = await record('dev-a', 'ALARM', now - 10_000);

    expect([outcome.outcome, await armedByAlarm(now)]).toEqual(['recorded', ['dev-a']]);
  });

  it('stops arming a day after it was last recorded, without waiting for TTL to delete it', async () => {
    await record('dev-a', 'ALARM', 1_000);

    // Recorded when it arrived, 5 s after the change.
    expect(await armedByAlarm(6_000 + 86_400_000 + 1_000)).toEqual([]);
  });

  it('says what it holds of each alarm, expired and OK ones too, for the refresh to compare, and nothing of node churn', async () => {
    await record('dev-a', 'ALARM', 1_000);
    await record('dev-b', 'OK', 2_000);
    await new DynamoDbNodeChurnLedger(documentClient(), TABLE).notePossibleRepair(
      { cluster: 'dev-a', instanceId: 'i-1', at: 3_000, reason: 'unhealthy' },
      3_000,
    );
    // An alarm state as a release that wrote no change time would have stored it.
    await documentClient().send(
      new PutCommand({ TableName: TABLE, Item: { ...tripwireKey('dev-c'), state: 'ALARM', expiresAt: 86_400 } }),
    );

    const { recorded } = await tripwires.armed(2 * 86_400_000);

    expect(recorded && Object.fromEntries(recorded)).toEqual({
      'dev-a': { state: 'ALARM', changedAt: 1_000, expiresAt: 86_406_000 },
      'dev-b': { state: 'OK', changedAt: 2_000, expiresAt: 86_407_000 },
      'dev-c': { state: 'ALARM', expiresAt: 86_400_000 },
    });
  });

  it('ignores alarms of clusters it does not watch', async () => {
    const outcome = await record('prod-z', 'ALARM', 1_000);

    expect([outcome, await armedByAlarm(10_000)]).toEqual([{ state: 'ALARM' }, []]);
  });

  // About 150 bytes a tripwire with a 100-character name: 1.5 MB for the fleet, where a query's page ends at 1 MB.
  // Last in the file: the next test's clearing would delete the fleet's items 25 at a time.
  it('reads every tripwire of the largest fleet with the longest names, past the 1 MB a query returns', async () => {
    const now = Date.parse('2026-11-23T09:00:00Z');
    const clusters = Array.from({ length: MAX_FLEET_CLUSTERS }, (_, i) => longClusterName(i));
    const expiresAt = Math.floor(now / 1000) + 86_400;
    // BatchWriteItem takes 25 items a call: 400 calls, a few at once.
    const batches = Array.from({ length: clusters.length / 25 }, (_, i) => clusters.slice(25 * i, 25 * i + 25));
    await atMost(batches, 4, (batch) =>
      documentClient().send(
        new BatchWriteCommand({
          RequestItems: {
            [TABLE]: batch.map((cluster) => ({
              PutRequest: { Item: { ...tripwireKey(cluster), state: 'OK', changedAt: now - 60_000, expiresAt } },
            })),
          },
        }),
      ),
    );
    const [first, nearLast, last] = [clusters[0] ?? '', clusters.at(-10) ?? '', clusters.at(-1) ?? ''];
    await recorder.record(first, 'ALARM', now - 30_000, now);
    await recorder.record(last, 'ALARM', now - 30_000, now);
    // Three possible repairs within 30 minutes arm the cluster's node-churn tripwire, as the node-churn function does.
    const ledger = new DynamoDbNodeChurnLedger(documentClient(), TABLE);
    for (const minute of [3, 2, 1]) {
      const at = now - minute * 60_000;
      await ledger.notePossibleRepair({ cluster: nearLast, instanceId: `i-${minute}`, at, reason: 'unhealthy' }, at);
    }
    // The edge itself: one query of the partition stops short of the fleet.
    const onePage = await documentClient().send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: `${TABLE_SCHEMA.partitionKey} = :pk`,
        ExpressionAttributeValues: { ':pk': PARTITION.tripwire },
        ConsistentRead: true,
      }),
    );

    const armed = await tripwires.armed(now);

    expect([onePage.LastEvaluatedKey !== undefined, [...armed.byAlarm], [...armed.byNodeChurn]]).toEqual([
      true,
      [first, last],
      [nearLast],
    ]);
  });
});
