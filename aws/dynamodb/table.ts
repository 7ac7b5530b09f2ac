import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { atMost, STORE_REQUESTS_IN_FLIGHT } from '../../shared/at-most.ts';
import { DAY_MS } from '../../shared/time.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** How long an item is kept before its TTL deletes it, unless the caller says otherwise. */
export const TABLE_RETENTION_DAYS = 35;

/** What this module sends: the queries every store makes, on the table and on its `byDay` index. */
export const IAM_ACTIONS = ['dynamodb:Query'] as const;

export interface DynamoDbTableOptions {
  readonly client: DynamoDBDocumentClient;
  readonly table: string;
  readonly now: () => number;
  /** How long resolved incidents, notifications and poll records are kept (the digest compares two weeks). */
  readonly retentionDays?: number;
  /**
   * The write units a second the table serves one partition: DynamoDB's 1,000 (partition-pacing.ts), unless a
   * stand-in holds a line scaled to a smaller fleet.
   */
  readonly partitionWriteUnits?: number;
}

/**
 * How a query reads: `consistent` sees every write that succeeded before it; `eventual` costs half the read units
 * and may miss a write of about the last second ("Read consistency",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadConsistency.html).
 */
type ReadConsistency = 'consistent' | 'eventual';

/** Run `write` over every item, at most `STORE_REQUESTS_IN_FLIGHT` at once; the first failure fails the whole. */
export async function writeEach<T>(items: readonly T[], write: (item: T) => Promise<void>): Promise<void> {
  await atMost(items, STORE_REQUESTS_IN_FLIGHT, write);
}

/** The one table the stores share: its client, name, clock and retention, and the queries every store makes. */
export class DynamoDbTable {
  readonly db: DynamoDBDocumentClient;
  readonly name: string;
  readonly now: () => number;
  /** How long resolved incidents, notifications and poll records are kept. */
  readonly retentionMs: number;
  readonly partitionWriteUnits: number | undefined;

  constructor(options: DynamoDbTableOptions) {
    this.db = options.client;
    this.name = options.table;
    this.now = options.now;
    this.retentionMs = (options.retentionDays ?? TABLE_RETENTION_DAYS) * DAY_MS;
    this.partitionWriteUnits = options.partitionWriteUnits;
  }

  /** The TTL of an item kept for the retention period from `from`. */
  expiresAt(from: number): number {
    return Math.floor((from + this.retentionMs) / 1000);
  }

  /** Every item of one partition, read consistently. */
  partition(pk: string): Promise<Record<string, unknown>[]> {
    return this.queryAll({
      TableName: this.name,
      KeyConditionExpression: `${TABLE_SCHEMA.partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': pk },
      ConsistentRead: true,
    });
  }

  /** The items of one partition whose sort key is `from` or after it, read consistently. */
  partitionFrom(pk: string, from: string): Promise<Record<string, unknown>[]> {
    return this.queryAll({
      TableName: this.name,
      KeyConditionExpression: `${TABLE_SCHEMA.partitionKey} = :pk AND ${TABLE_SCHEMA.sortKey} >= :from`,
      ExpressionAttributeValues: { ':pk': pk, ':from': from },
      ConsistentRead: true,
    });
  }

  /**
   * The items of one partition whose sort key is from `from` to `to`, both included, read consistently unless `read`
   * says `eventual`: half the read units, for a reader that never needs an item written within the last second.
   */
  partitionBetween(
    pk: string,
    from: string,
    to: string,
    read: ReadConsistency = 'consistent',
  ): Promise<Record<string, unknown>[]> {
    return this.queryAll({
      TableName: this.name,
      KeyConditionExpression: `${TABLE_SCHEMA.partitionKey} = :pk AND ${TABLE_SCHEMA.sortKey} BETWEEN :from AND :to`,
      ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': to },
      ConsistentRead: read === 'consistent',
    });
  }

  /** The items of one partition whose sort key begins with `prefix`, read consistently, in the order of their keys. */
  partitionPrefix(pk: string, prefix: string): Promise<Record<string, unknown>[]> {
    return this.queryAll({
      TableName: this.name,
      KeyConditionExpression: `${TABLE_SCHEMA.partitionKey} = :pk AND begins_with(${TABLE_SCHEMA.sortKey}, :prefix)`,
      ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
      ConsistentRead: true,
    });
  }

  /** Items of one partition of the `byDay` index (eventually consistent, which its readers tolerate). */
  day(day: string): Promise<Record<string, unknown>[]> {
    return this.queryAll({
      TableName: this.name,
      IndexName: TABLE_SCHEMA.dayIndex.name,
      KeyConditionExpression: '#day = :day',
      ExpressionAttributeNames: { '#day': TABLE_SCHEMA.dayIndex.partitionKey },
      ExpressionAttributeValues: { ':day': day },
    });
  }

  /** The items of the `byDay` index under each of `days`, in that order. */
  async days(days: readonly string[]): Promise<Record<string, unknown>[]> {
    return (await Promise.all(days.map((day) => this.day(day)))).flat();
  }

  private async queryAll(input: ConstructorParameters<typeof QueryCommand>[0]): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(new QueryCommand({ ...input, ...(start && { ExclusiveStartKey: start }) }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }
}
