import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SilenceStore } from '../../shared/pipeline/ports.ts';
import { expiredSilence, extendedSilence, type Silence, SilenceError } from '../../shared/pipeline/silence.ts';
import { isConditionFailure } from './conditions.ts';
import { DynamoDbSilences } from './silences.ts';
import { DynamoDbTable, type DynamoDbTableOptions } from './table.ts';
import { silenceKey } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/**
 * What this module sends: one conditional put to add a silence, one to expire it; to extend it, a put at its new end
 * and a conditional delete of the item at its old one.
 */
export const IAM_ACTIONS = ['dynamodb:PutItem', 'dynamodb:DeleteItem'] as const;

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
          ...unchanged(silence),
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
    return expired;
  }

  /**
   * A silence is keyed by its end, so a later end is a new item: put at the new key first, then the old item deleted
   * if it is unchanged. A run stopped between the two leaves both, which the readers take as one (the later end, see
   * DynamoDbSilences); DynamoDB has TransactWriteItems for the pair, but the two writes need no atomicity for that.
   */
  async extend(id: string, duration: string, at: number, by: string): Promise<Silence | undefined> {
    const silence = (await this.endingAfter(at)).find((s) => s.id === id && s.expired === undefined);
    if (!silence) return undefined;
    const extended = extendedSilence(silence, duration, at, by);
    try {
      await this.table.db.send(
        new PutCommand({
          TableName: this.table.name,
          Item: { ...silenceKey(extended.to, id), silence: extended, expiresAt: this.table.expiresAt(extended.to) },
          ConditionExpression: `attribute_not_exists(${TABLE_SCHEMA.partitionKey})`,
        }),
      );
      await this.table.db.send(
        new DeleteCommand({
          TableName: this.table.name,
          Key: silenceKey(silence.to, id),
          ...unchanged(silence),
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
    return extended;
  }
}

/** The condition that the item of a silence still holds it as it was read: nobody ended or extended it meanwhile. */
function unchanged(silence: Silence) {
  return {
    ConditionExpression: 'attribute_exists(silence) AND silence.#to = :to',
    ExpressionAttributeNames: { '#to': 'to' },
    ExpressionAttributeValues: { ':to': silence.to },
  };
}

/** The silences of a deployed table, for `sentinel silence`. */
export function dynamoDbSilenceStore(options: DynamoDbTableOptions): DynamoDbSilenceStore {
  return new DynamoDbSilenceStore(new DynamoDbTable(options));
}
