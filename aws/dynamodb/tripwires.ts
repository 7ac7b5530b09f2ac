import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Tripwires } from '../../shared/pipeline/ports.ts';
import { decodeItem, tripwireItem } from './table-items.ts';
import { clusterOfTripwireKey, PARTITION } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** What this module sends: one consistent query of the tripwire states per poll. */
export const IAM_ACTIONS = ['dynamodb:Query'] as const;

/**
 * Tripwire states as the alarms last reported them (`TRIPWIRE`/`<cluster>` items in the incident table), read by
 * every poll; DynamoDbTripwireRecorder writes them. The node-churn function arms a cluster too, for a while, after a
 * termination that could be a repair (`TRIPWIRE`/`<cluster>#node-churn`).
 */
export class DynamoDbTripwires implements Tripwires {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async armed(at: number): Promise<ReadonlySet<string>> {
    return this.armedBy(at, (sk) => !sk.includes('#'));
  }

  async armedByNodeChurn(at: number): Promise<ReadonlySet<string>> {
    return this.armedBy(at, (sk) => sk.includes('#'));
  }

  private async armedBy(at: number, kind: (sk: string) => boolean): Promise<ReadonlySet<string>> {
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: `${TABLE_SCHEMA.partitionKey} = :pk`,
        ExpressionAttributeValues: { ':pk': PARTITION.tripwire },
        ConsistentRead: true,
      }),
    );
    // TTL deletes late (up to days): an expired tripwire is ignored here rather than trusted until it is gone.
    const states = Items.map((item) => decodeItem(tripwireItem, item)).filter((tripwire) => kind(tripwire.sk));
    const live = states.filter(
      (tripwire) => tripwire.state === 'ALARM' && (tripwire.armedUntil ?? tripwire.expiresAt) * 1000 > at,
    );
    return new Set(live.map((tripwire) => clusterOfTripwireKey(tripwire.sk)));
  }
}
