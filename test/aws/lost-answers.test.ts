import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { CURSOR_KEY } from '../../aws/dynamodb/table-keys.ts';
import { type AwsHarness, startAwsHarness, TABLE } from '../../support/aws-harness.ts';

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

describe('a claim whose answer is lost', () => {
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
});
