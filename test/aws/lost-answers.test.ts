import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { CURSOR_KEY } from '../../aws/dynamodb/table-keys.ts';
import { isoSeconds } from '../../shared/time.ts';
import { type AwsHarness, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { type FaultPlan, faultyClients, losingFirstClaimAndCommitAnswers } from '../../support/store-faults.ts';
import { notificationAt } from '../support/engine-fixtures.ts';

/**
 * A client whose first update of the cursor lands but whose answer is lost: the SDK sends the request again, and it is
 * the retry's answer the caller sees, as when a connection drops after DynamoDB applied the write.
 */
function losingFirstCursorAnswer(): DynamoDBDocumentClient {
  const client = documentClient();
  const send = client.send.bind(client);
  let lost = false;
  client.send = (async (command: { input: { Key?: { sk?: string }; UpdateExpression?: string } }) => {
    const claiming = command.input.Key?.sk === CURSOR_KEY.sk && command.input.UpdateExpression?.includes('claimedStep');
    if (lost || !claiming) return send(command as never);
    lost = true;
    await send(command as never);
    return send(command as never);
  }) as typeof client.send;
  return client;
}

describe('a claim or a commit whose answer is lost', () => {
  let harness: AwsHarness;

  beforeAll(async () => {
    harness = await startAwsHarness();
  });

  afterAll(async () => {
    await harness.close();
  });

  it('recognises its own earlier success on retry and reports the step claimed, not busy', async () => {
    const now = Date.parse('2026-11-20T10:00:00Z');
    const stores = dynamoDbStores({ client: losingFirstCursorAnswer(), table: TABLE, now: () => now });

    expect(await stores.ledger.claimStep(now - 180_000, 'poll-1', now + 60_000)).toBe('claimed');
  });

  it('recognises its own commit, held in the step header, when that answer is lost, and pages once', async () => {
    const now = Date.parse('2026-11-20T11:00:00Z');
    const at = now - 180_000;
    const page = notificationAt({ at: isoSeconds(at), kind: 'page', rule: 'webhook-blackhole' });
    const plan = losingFirstClaimAndCommitAnswers();
    const struck: string[] = [];
    const recording: FaultPlan = (request) => {
      const fault = plan(request);
      if (fault) struck.push(`${fault} ${String(request.Item?.pk ?? request.Key?.sk)}`);
      return fault;
    };
    const stores = dynamoDbStores({ client: faultyClients(recording)(), table: TABLE, now: () => now });

    expect(await stores.ledger.claimStep(at, 'poll-1', now + 60_000)).toBe('claimed');
    const committed = await stores.ledger.recordStep({ at, changed: [], notifications: [page] }, 'poll-1');

    expect([
      struck,
      committed.map((n) => n.id),
      (await stores.outbox.pending()).map((p) => p.notification.id).filter((id) => id === page.id),
    ]).toEqual([['lose-answer CURSOR', 'lose-answer STEP'], [page.id], [page.id]]);
  });
});
