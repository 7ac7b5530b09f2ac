import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { DynamoDbTripwireRecorder } from '../../aws/dynamodb/tripwire-recorder.ts';
import { DynamoDbTripwires } from '../../aws/dynamodb/tripwires.ts';
import { recordTripwire } from '../../functions/tripwire/tripwire-event.ts';
import { type AwsHarness, clearTable, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { alarmEventFor } from '../../support/poller-harness.ts';

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

  beforeAll(async () => {
    harness = await startAwsHarness();
    tripwires = new DynamoDbTripwires(documentClient(), TABLE);
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
    const armed = await tripwires.armed(10_000);
    await record('dev-a', 'OK', 2_000);

    expect([[...armed], [...(await tripwires.armed(10_000))]]).toEqual([['dev-a'], []]);
  });

  it('keeps the newest state when EventBridge delivers an older change late, and says it ignored the older', async () => {
    await record('dev-b', 'ALARM', 5_000);
    const late = await record('dev-b', 'OK', 4_000, 3_000);

    expect([late.outcome, [...(await tripwires.armed(10_000))], warnings.length]).toEqual(['superseded', ['dev-b'], 1]);
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
    expect([...(await tripwires.armed(now))]).toEqual(['dev-a']);
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

    expect([outcome.outcome, [...(await tripwires.armed(now))]]).toEqual(['recorded', ['dev-a']]);
  });

  it('stops arming a day after it was last recorded, without waiting for TTL to delete it', async () => {
    await record('dev-a', 'ALARM', 1_000);

    // Recorded when it arrived, 5 s after the change.
    expect([...(await tripwires.armed(6_000 + 86_400_000 + 1_000))]).toEqual([]);
  });

  it('ignores alarms of clusters it does not watch', async () => {
    const outcome = await record('prod-z', 'ALARM', 1_000);

    expect([outcome, [...(await tripwires.armed(10_000))]]).toEqual([{ state: 'ALARM' }, []]);
  });
});
