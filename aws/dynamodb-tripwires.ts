import { type DynamoDBDocumentClient, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Tripwires } from '../shared/pipeline/ports.ts';
import { isConditionFailure } from './dynamodb-incident-store.ts';

/** Where an alarm's state change is kept until the polls read it. */
export interface TripwireRecorder {
  record(cluster: string, state: string, changedAt: number): Promise<void>;
}

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
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'TRIPWIRE' },
        ConsistentRead: true,
      }),
    );
    // TTL deletes late (up to days): an expired tripwire is ignored here rather than trusted until it is gone.
    const live = Items.filter((item) => item.state === 'ALARM' && (item.expiresAt as number) * 1000 > at);
    return new Set(live.map((item) => item.sk as string));
  }

  /** Keep the newest state only: EventBridge may deliver state changes late or out of order. */
  async record(cluster: string, state: string, changedAt: number): Promise<void> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: 'TRIPWIRE',
            sk: cluster,
            state,
            changedAt,
            expiresAt: Math.floor(changedAt / 1000) + TRIPWIRE_TTL_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR changedAt < :changedAt',
          ExpressionAttributeValues: { ':changedAt': changedAt },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
