import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TripwireRecorder, Tripwires } from '../shared/pipeline/ports.ts';
import { isConditionFailure } from './dynamodb-table.ts';
import { decodeItem, tripwireItem } from './table-items.ts';
import { PARTITION, tripwireKey } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** A tripwire left in ALARM (its alarm deleted, say) stops arming after a day rather than polling forever. */
const TRIPWIRE_TTL_SECONDS = 86_400;

/**
 * Tripwire states as the alarms last reported them (`TRIPWIRE`/`<cluster>` items in the incident table), written by
 * the alarm state-change event and read by every poll.
 */
export class DynamoDbTripwires implements Tripwires, TripwireRecorder {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async armed(at: number): Promise<ReadonlySet<string>> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: `${TABLE_SCHEMA.partitionKey} = :pk`,
        ExpressionAttributeValues: { ':pk': PARTITION.tripwire },
        ConsistentRead: true,
      }),
    );
    // TTL deletes late (up to days): an expired tripwire is ignored here rather than trusted until it is gone.
    const states = Items.map((item) => decodeItem(tripwireItem, item));
    const live = states.filter((tripwire) => tripwire.state === 'ALARM' && tripwire.expiresAt * 1000 > at);
    return new Set(live.map((tripwire) => tripwire.sk));
  }

  async record(cluster: string, state: string, changedAt: number, now: number): Promise<'recorded' | 'superseded'> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...tripwireKey(cluster),
            state,
            changedAt,
            expiresAt: Math.floor(changedAt / 1000) + TRIPWIRE_TTL_SECONDS,
          },
          ConditionExpression: `attribute_not_exists(${TABLE_SCHEMA.partitionKey}) OR changedAt < :changedAt OR changedAt > :now`,
          ExpressionAttributeValues: { ':changedAt': changedAt, ':now': now },
        }),
      );
      return 'recorded';
    } catch (error) {
      if (isConditionFailure(error)) return 'superseded';
      throw error;
    }
  }
}
