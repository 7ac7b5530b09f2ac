import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { CountedTermination, NodeChurnReader } from '../../shared/churn/node-churn.ts';
import { decodeItem, terminationItem } from './table-items.ts';
import { nodeChurnPartition } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** What this module sends: one query per cluster and poll. */
export const IAM_ACTIONS = ['dynamodb:Query'] as const;

/** The node terminations DynamoDbNodeChurnLedger counted, read by the poller one cluster at a time. */
export class DynamoDbNodeChurnReader implements NodeChurnReader {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async terminations(cluster: string, from: number, to: number): Promise<CountedTermination[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      // Eventually consistent: a poll reads minutes that ended at least its ingestion lag ago.
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: `${TABLE_SCHEMA.partitionKey} = :pk AND ${TABLE_SCHEMA.sortKey} BETWEEN :from AND :to`,
          ExpressionAttributeValues: {
            ':pk': nodeChurnPartition(cluster),
            ':from': new Date(from).toISOString(),
            // Every key of a minute before `to` sorts below the minute's time with `~`, the highest printable ASCII.
            ':to': `${new Date(to - 1).toISOString()}~`,
          },
          ...(start && { ExclusiveStartKey: start }),
        }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items.map((item) => decodeItem(terminationItem, item));
  }
}
