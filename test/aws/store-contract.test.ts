import { afterAll, beforeAll } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { type AwsHarness, clearTable, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { storeContract } from '../support/store-contracts.ts';

let harness: AwsHarness;

beforeAll(async () => {
  harness = await startAwsHarness();
});

afterAll(async () => {
  await harness.close();
});

storeContract('the DynamoDB stores', async (now) => {
  await clearTable(harness.dynamoEndpoint);
  return dynamoDbStores({ client: documentClient(), table: TABLE, now });
});
