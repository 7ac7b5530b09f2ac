import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ShardFindings, ShardReport } from '../../shared/pipeline/shards.ts';
import { isConditionFailure } from './conditions.ts';
import { putGzippedParts, readGzippedParts } from './gzipped-parts.ts';
import type { DynamoDbTable } from './table.ts';
import { decodeItem, decodeJson, shardHeaderItem, shardReport } from './table-items.ts';
import { shardKey, shardPartKey } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** What this module sends: a worker's report of its shard, and the poller's reads of them. */
export const IAM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem'] as const;

/**
 * Shard reports in the pipeline's table, written as a step's outcome is: the parts under the writer's name, then the
 * header by a conditional put, the commit point. A redelivered task's worker finds the header there and its report
 * is dropped, so that the poller reads one report per shard however often SQS delivered it, never parts of two.
 */
export class DynamoDbShardFindings implements ShardFindings {
  constructor(
    private readonly table: DynamoDbTable,
    /** The writer of reports: the worker invocation's request id. */
    private readonly owner: string,
  ) {}

  async report(report: ShardReport): Promise<void> {
    const { owner } = this;
    const expiresAt = this.table.expiresAt(this.table.now());
    const parts = await putGzippedParts(
      this.table,
      JSON.stringify(report),
      (part) => shardPartKey(report.at, report.shard, owner, part),
      expiresAt,
    );
    try {
      await this.table.db.send(
        new PutCommand({
          TableName: this.table.name,
          Item: { ...shardKey(report.at, report.shard), parts, owner, expiresAt },
          ConditionExpression: `attribute_not_exists(${TABLE_SCHEMA.partitionKey})`,
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async reportsOf(at: number, shards: number): Promise<ShardReport[]> {
    const reports = await Promise.all(Array.from({ length: shards }, (_, shard) => this.reportOf(at, shard)));
    return reports.filter((r) => r !== undefined);
  }

  private async reportOf(at: number, shard: number): Promise<ShardReport | undefined> {
    const key = shardKey(at, shard);
    const { Item } = await this.table.db.send(
      new GetCommand({ TableName: this.table.name, Key: key, ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const header = decodeItem(shardHeaderItem, Item, key);
    const json = await readGzippedParts(this.table, header.parts, (part) =>
      shardPartKey(at, shard, header.owner, part),
    );
    return decodeJson(shardReport, json, key);
  }
}
