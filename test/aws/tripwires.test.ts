import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { DynamoDbTripwires } from '../../aws/dynamodb-tripwires.ts';
import { recordTripwire } from '../../functions/tripwire/tripwire-event.ts';
import { type AwsHarness, clearTable, startAwsHarness, TABLE } from '../support/aws-harness.ts';
import { alarmEventFor } from '../support/poller-harness.ts';

describe('tripwires in DynamoDB', () => {
  let harness: AwsHarness;
  let tripwires: DynamoDbTripwires;
  const record = (cluster: string, state: 'ALARM' | 'OK', at: number) =>
    recordTripwire(
      { tripwires, deployment: 'test', clusters: new Set(['dev-a', 'dev-b']) },
      alarmEventFor(cluster, state, at).detail,
    );

  beforeAll(async () => {
    harness = await startAwsHarness();
    tripwires = new DynamoDbTripwires(documentClient(), TABLE);
  });

  beforeEach(async () => {
    await clearTable(harness.dynamoEndpoint);
  });

  afterAll(async () => {
    await harness.close();
  });

  it('arms a cluster when its alarm goes to ALARM and disarms it on OK', async () => {
    await record('dev-a', 'ALARM', 1_000);
    const armed = await tripwires.armed(10_000);
    await record('dev-a', 'OK', 2_000);

    expect([[...armed], [...(await tripwires.armed(10_000))]]).toEqual([['dev-a'], []]);
  });

  it('keeps the newest state when EventBridge delivers an older change late', async () => {
    await record('dev-b', 'ALARM', 5_000);
    await record('dev-b', 'OK', 4_000);

    expect([...(await tripwires.armed(10_000))]).toEqual(['dev-b']);
  });

  it('stops arming a day after the last state change, without waiting for TTL to delete it', async () => {
    await record('dev-a', 'ALARM', 1_000);

    expect([...(await tripwires.armed(1_000 + 86_400_000 + 1_000))]).toEqual([]);
  });

  it('ignores alarms of clusters it does not watch', async () => {
    const outcome = await record('prod-z', 'ALARM', 1_000);

    expect([outcome, [...(await tripwires.armed(10_000))]]).toEqual([{ state: 'ALARM' }, []]);
  });
});
