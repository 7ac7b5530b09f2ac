import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { HandResolution } from '../../shared/engine/hand-resolution.ts';
import type { HandResolutionStore } from '../../shared/pipeline/ports.ts';
import { isConditionFailure } from './conditions.ts';
import { DynamoDbHandResolutions } from './hand-resolutions.ts';
import { decodeItem, handResolutionItem } from './table-items.ts';
import { handResolutionKey } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** What this module sends: one conditional put, and a consistent read of the resolution kept before it. */
export const IAM_ACTIONS = ['dynamodb:PutItem', 'dynamodb:GetItem'] as const;

/**
 * Hand resolutions as `sentinel incidents resolve` writes them. Kept for the table's retention, so that the polls
 * have long marked the incidents it covers before DynamoDB's TTL deletes it, and `sentinel incidents show` can tell
 * who resolved what.
 */
export class DynamoDbHandResolutionStore extends DynamoDbHandResolutions implements HandResolutionStore {
  async record(resolution: HandResolution): Promise<HandResolution> {
    const key = handResolutionKey(resolution.group);
    try {
      await this.table.db.send(
        new PutCommand({
          TableName: this.table.name,
          Item: { ...key, resolution, expiresAt: this.table.expiresAt(Date.parse(resolution.at)) },
          ConditionExpression: `attribute_not_exists(${TABLE_SCHEMA.partitionKey})`,
        }),
      );
      return resolution;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item } = await this.table.db.send(
      new GetCommand({ TableName: this.table.name, Key: key, ConsistentRead: true }),
    );
    // Deleted between the two calls only by TTL, long after: then this one is the one to keep.
    return Item ? decodeItem(handResolutionItem, Item, key).resolution : this.record(resolution);
  }
}
