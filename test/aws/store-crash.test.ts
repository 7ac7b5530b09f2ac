import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { isoSeconds } from '../../shared/time.ts';
import { type AwsHarness, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { dyingAtFirstOutboxWrite, faultyClients } from '../../support/store-faults.ts';
import { notificationAt } from '../support/engine-fixtures.ts';

describe('a step whose writer dies after committing it', () => {
  let harness: AwsHarness;

  beforeAll(async () => {
    harness = await startAwsHarness();
  });

  afterAll(async () => {
    await harness.close();
  });

  it('is rolled forward by its retry, in several parts, and never evaluated again', async () => {
    let now = Date.parse('2026-11-20T10:00:00Z');
    const at = now - 180_000;
    // 400 notifications of 1 KB each: an outcome over 300 KB, committed in two parts.
    const notifications: Notification[] = Array.from({ length: 400 }, (_, i) => ({
      ...notificationAt({ at: isoSeconds(at), kind: 'page', rule: 'webhook-blackhole' }),
      id: `${isoSeconds(at)}/page/webhook-blackhole/${i}`,
      summary: 'x'.repeat(1000),
    }));
    const dying = dynamoDbStores({ client: faultyClients(dyingAtFirstOutboxWrite())(), table: TABLE, now: () => now });
    expect(await dying.ledger.claimStep(at, 'first', now + 60_000)).toBe('claimed');
    await expect(dying.ledger.recordStep({ at, changed: [], notifications }, 'first')).rejects.toThrow(
      'Task timed out',
    );

    now += 120_000;
    const retry = dynamoDbStores({ client: documentClient(), table: TABLE, now: () => now });
    const claim = await retry.ledger.claimStep(at, 'first-retry', now + 60_000);

    expect([claim, (await retry.outbox.pending()).length]).toEqual(['done', 400]);
  });
});
