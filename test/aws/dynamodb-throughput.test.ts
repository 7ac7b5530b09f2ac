import { DynamoDBClient, ProvisionedThroughputExceededException, QueryCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { RETRY_ATTEMPTS } from '../../aws/clients.ts';
import { type AwsHarness, clearTable, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import {
  DYNAMODB_THROUGHPUT,
  type DynamoDbThroughputProxy,
  startDynamoDbThroughputProxy,
  THROUGHPUT_EXCEEDED,
  type ThroughputLimits,
} from '../../support/dynamodb-throughput-proxy.ts';

/**
 * The loopback throughput line over real HTTP with the real SDK client: dynalite behind the proxy, with lines low
 * enough that a test crosses them in a few requests. The limits scale down; the answers do not.
 */
const PER_PARTITION_WRITES = 10;
const LIMITS: ThroughputLimits = {
  ...DYNAMODB_THROUGHPUT,
  partitionWriteUnits: PER_PARTITION_WRITES,
};

describe('the loopback DynamoDB throughput line', () => {
  let harness: AwsHarness;
  const proxies: DynamoDbThroughputProxy[] = [];
  const clients: DynamoDBClient[] = [];

  beforeAll(async () => {
    harness = await startAwsHarness();
  });
  beforeEach(async () => {
    await clearTable(harness.dynamoEndpoint);
  });
  afterAll(async () => {
    for (const client of clients) client.destroy();
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await harness.close();
  });

  const proxied = async (limits: ThroughputLimits, maxAttempts: number) => {
    const proxy = await startDynamoDbThroughputProxy({ target: harness.dynamoEndpoint, limits });
    proxies.push(proxy);
    const client = new DynamoDBClient({ endpoint: proxy.endpoint, maxAttempts, retryMode: 'standard' });
    clients.push(client);
    return { proxy, db: DynamoDBDocumentClient.from(client) };
  };
  /** A small item (well under a kilobyte: one write unit) of partition `pk`. */
  const put = (db: DynamoDBDocumentClient, pk: string, sk: string, extra: Record<string, string> = {}) =>
    db.send(new PutCommand({ TableName: TABLE, Item: { pk, sk, ...extra } })).then(
      () => 'written' as const,
      (error: unknown) => error,
    );
  /** What dynalite itself holds of partition `pk`, read beside the proxy. */
  const stored = async (pk: string) => {
    const client = new DynamoDBClient({ endpoint: harness.dynamoEndpoint });
    clients.push(client);
    const { Items = [] } = await client.send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: pk } },
        ConsistentRead: true,
      }),
    );
    return Items.map((item) => item.sk?.S);
  };

  it("refuses writes over a partition key's units in a second as DynamoDB does, and applies none of them", async () => {
    const { proxy, db } = await proxied(LIMITS, 1);

    const answers = await Promise.all(
      Array.from({ length: 3 * PER_PARTITION_WRITES }, (_, i) => put(db, 'OPEN', `${i}`)),
    );

    const written = answers.flatMap((answer, i) => (answer === 'written' ? [`${i}`] : []));
    const refused = answers.filter((answer) => answer !== 'written');
    // A second's units and what refilled while the burst was sent; the rest refused.
    expect(written.length).toBeGreaterThanOrEqual(PER_PARTITION_WRITES);
    expect(written.length).toBeLessThan(2 * PER_PARTITION_WRITES);
    expect(refused[0]).toBeInstanceOf(ProvisionedThroughputExceededException);
    expect(refused[0]).toMatchObject({
      message: THROUGHPUT_EXCEEDED.message,
      $metadata: { httpStatusCode: 400 },
      ThrottlingReasons: [
        { reason: 'TableWriteKeyRangeThroughputExceeded', resource: expect.stringMatching(`:table/${TABLE}$`) },
      ],
    });
    expect(proxy.throttled.get('OPEN')).toBe(refused.length);
    expect([...proxy.throttledRequests]).toEqual([['PutItem OPEN', refused.length]]);
    expect((await stored('OPEN')).sort()).toEqual(written.sort());
  });

  it("holds DynamoDB's own line unless told another: a partition key's 1,000 write units a second", async () => {
    const proxy = await startDynamoDbThroughputProxy({ target: harness.dynamoEndpoint });
    proxies.push(proxy);
    const client = new DynamoDBClient({ endpoint: proxy.endpoint, maxAttempts: 1 });
    clients.push(client);
    const db = DynamoDBDocumentClient.from(client);
    // Items of just under 8 KB, eight write units each: 300 of them at once are 2,400 units.
    const payload = 'x'.repeat(8000);

    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => put(db, 'OPEN', `${i}`, { payload })));

    const written = answers.filter((answer) => answer === 'written').length;
    expect(DYNAMODB_THROUGHPUT.partitionWriteUnits).toBe(1_000);
    expect(proxy.throttled.get('OPEN')).toBe(300 - written);
    expect(written).toBeGreaterThanOrEqual(1_000 / 8);
    expect(written).toBeLessThan(300);
  });

  it("admits an item larger than a second's line when the partition is full, and nothing more until it is paid", async () => {
    const { proxy, db } = await proxied(LIMITS, 1);
    // About 20 write units against a line of 10 a second: DynamoDB serves any one item within its partition's second.
    const payload = 'x'.repeat(20 * 1024 - 100);

    const large = await put(db, 'STEP', 'part-0', { payload });
    const next = await put(db, 'STEP', 'header');

    expect(large).toBe('written');
    expect(next).toBeInstanceOf(ProvisionedThroughputExceededException);
    expect(proxy.throttled.get('STEP')).toBe(1);
  });

  it('leaves every other partition key its own units', async () => {
    const { proxy, db } = await proxied(LIMITS, 1);
    await Promise.all(Array.from({ length: 2 * PER_PARTITION_WRITES }, (_, i) => put(db, 'OPEN', `${i}`)));

    const elsewhere = await Promise.all(
      Array.from({ length: PER_PARTITION_WRITES - 1 }, (_, i) => put(db, 'INCIDENT', `${i}`)),
    );

    expect(proxy.throttled.get('OPEN')).toBeGreaterThan(0);
    expect(elsewhere.every((answer) => answer === 'written')).toBe(true);
    expect(proxy.throttled.has('INCIDENT')).toBe(false);
  });

  it("refuses a write over an index partition's units with the index's reason, whatever the table's key", async () => {
    const { proxy, db } = await proxied(LIMITS, 1);

    const answers = await Promise.all(
      Array.from({ length: 2 * PER_PARTITION_WRITES }, (_, i) =>
        put(db, `NODES#${i}`, 'x', { day: 'INCIDENT#2026-11-27', at: `${i}` }),
      ),
    );

    const refused = answers.filter((answer) => answer !== 'written');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({
      ThrottlingReasons: [
        { reason: 'IndexWriteKeyRangeThroughputExceeded', resource: expect.stringMatching(`/index/byDay$`) },
      ],
    });
    expect(proxy.throttled.get('byDay:INCIDENT#2026-11-27')).toBe(refused.length);
  });

  it("refuses writes over the table's units in all across partition keys", async () => {
    const { proxy, db } = await proxied({ ...DYNAMODB_THROUGHPUT, tableWriteUnits: PER_PARTITION_WRITES }, 1);

    const answers = await Promise.all(
      Array.from({ length: 3 * PER_PARTITION_WRITES }, (_, i) => put(db, `NODES#${i}`, 'x')),
    );

    const refused = answers.filter((answer) => answer !== 'written');
    expect(refused.length).toBeGreaterThan(PER_PARTITION_WRITES);
    expect(proxy.throttled.get('table')).toBe(refused.length);
  });

  it("retries a refused write with the pipeline's retry policy until the partition has refilled", async () => {
    const { proxy, db } = await proxied(LIMITS, RETRY_ATTEMPTS.dynamodb);

    const answers = await Promise.all(
      Array.from({ length: 2 * PER_PARTITION_WRITES }, (_, i) => put(db, 'OPEN', `${i}`)),
    );

    // Twice a second's units at once: the second half is refused, retried after a backoff, and written.
    expect(proxy.throttled.get('OPEN')).toBeGreaterThanOrEqual(PER_PARTITION_WRITES / 2);
    expect(answers.every((answer) => answer === 'written')).toBe(true);
    expect(await stored('OPEN')).toHaveLength(2 * PER_PARTITION_WRITES);
  });
});
