import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SilenceStore } from '../shared/pipeline/ports.ts';
import { expiredSilence, type Silence, SilenceError } from '../shared/pipeline/silence.ts';
import { isConditionFailure } from './dynamodb-conditions.ts';
import { DynamoDbSilences } from './dynamodb-silences.ts';
import { DynamoDbTable, type DynamoDbTableOptions } from './dynamodb-table.ts';
import { silenceKey } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** What this module sends: one conditional put to add a silence, one to expire it. */
export const IAM_ACTIONS = ['dynamodb:PutItem'] as const;

/**
 * Silences as `sentinel silence` writes them. An item is kept for the table's retention after its silence ends, so
 * that the weekly digests can list it, and DynamoDB's TTL then deletes it; the poll never relies on that deletion.
 */
export class DynamoDbSilenceStore extends DynamoDbSilences implements SilenceStore {
  async add(silence: Silence): Promise<void> {
    try {
      await this.table.db.send(
        new PutCommand({
          TableName: this.table.name,
          Item: { ...silenceKey(silence.to, silence.id), silence, expiresAt: this.table.expiresAt(silence.to) },
          ConditionExpression: `attribute_not_exists(${TABLE_SCHEMA.partitionKey})`,
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new SilenceError(`a silence with id ${silence.id} already exists`);
      throw error;
    }
  }

  async expire(id: string, at: number, by: string): Promise<Silence | undefined> {
    const silence = (await this.endingAfter(at)).find((s) => s.id === id && s.expired === undefined);
    if (!silence) return undefined;
    const expired = expiredSilence(silence, at, by);
    try {
      await this.table.db.send(
        new PutCommand({
          TableName: this.table.name,
          // Not yet expired, its end is the one it was given, which is its key; the write holds only if nobody ended
          // it meanwhile.
          Item: { ...silenceKey(silence.to, id), silence: expired, expiresAt: this.table.expiresAt(expired.to) },
          ConditionExpression: 'attribute_exists(silence) AND silence.#to = :to',
          ExpressionAttributeNames: { '#to': 'to' },
          ExpressionAttributeValues: { ':to': silence.to },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
    return expired;
  }
}

/** The silences of a deployed table, for `sentinel silence`. */
export function dynamoDbSilenceStore(options: DynamoDbTableOptions): DynamoDbSilenceStore {
  return new DynamoDbSilenceStore(new DynamoDbTable(options));
}
