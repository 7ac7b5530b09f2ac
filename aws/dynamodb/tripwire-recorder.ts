import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { TripwireRecorder } from '../../shared/pipeline/ports.ts';
import { tripwireStateExpiresAt } from '../../shared/pipeline/tripwire-state.ts';
import { isConditionFailure } from './conditions.ts';
import { tripwireKey } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** What this module sends: one conditional put per alarm state change. */
export const IAM_ACTIONS = ['dynamodb:PutItem'] as const;

/**
 * Writes a tripwire alarm's state change (`TRIPWIRE`/`<cluster>` in the incident table), from the alarm state-change
 * event and from the poller's slow-cadence read of the alarms; the polls read it through DynamoDbTripwires.
 */
export class DynamoDbTripwireRecorder implements TripwireRecorder {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async record(cluster: string, state: string, changedAt: number, now: number): Promise<'recorded' | 'superseded'> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...tripwireKey(cluster),
            state,
            changedAt,
            // DynamoDB's TTL counts seconds; the state lives TRIPWIRE_STATE_LIFETIME_MS (a day) from then.
            expiresAt: tripwireStateExpiresAt(changedAt, now) / 1000,
          },
          ConditionExpression: `attribute_not_exists(${TABLE_SCHEMA.partitionKey}) OR changedAt <= :changedAt OR changedAt > :now`,
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
