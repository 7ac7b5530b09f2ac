import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Notification } from '../../shared/engine/notification.ts';
import type { Outbox } from '../../shared/pipeline/ports.ts';
import { isConditionFailure, unlessConditionFails } from './conditions.ts';
import { putGzippedParts } from './gzipped-parts.ts';
import { DynamoDbOutboxReader } from './outbox-reader.ts';
import { writeEach } from './table.ts';
import { DAY_INDEX, dayIndexEntry, dayOf, outboxKey, outboxPartKey } from './table-keys.ts';
import { INLINE_JSON_BYTES, utf8Bytes } from './table-limits.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** What this module sends: enqueueing, claiming and settling deliveries. */
export const IAM_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

/**
 * The outbox in DynamoDB (`OUTBOX`/`<notification id>`): a notification is indexed under `PENDING` until it is
 * delivered, then under the day it was raised, which is where the digest of its week looks for it. The reads are the
 * reader's; this adds the writes.
 */
export class DynamoDbOutbox extends DynamoDbOutboxReader implements Outbox {
  async enqueue(notifications: readonly Notification[]): Promise<void> {
    await writeEach(notifications, async (notification) => {
      const stored = await this.storeNotification(notification);
      await unlessConditionFails(
        this.table.db.send(
          new PutCommand({
            TableName: this.table.name,
            Item: {
              ...outboxKey(notification.id),
              ...stored,
              status: 'pending',
              attempts: 0,
              ...dayIndexEntry(DAY_INDEX.pending, notification.at),
              // Filed under the day it was raised, however late a retry delivers it, so its week keeps it.
              loggedDay: DAY_INDEX.raisedOn(dayOf(notification.at)),
            },
            ConditionExpression: `attribute_not_exists(${TABLE_SCHEMA.partitionKey})`,
          }),
        ),
      );
    });
  }

  /**
   * The attribute that holds a notification in its item: the notification itself, or, when it would take the item
   * past DynamoDB's 400 KB (a fleet outage's page lists every cluster with its evidence), the count of the gzipped
   * parts written here first. Rewriting the parts on a retry writes the same bytes, so enqueueing stays idempotent.
   */
  private async storeNotification(notification: Notification) {
    const json = JSON.stringify(notification);
    if (utf8Bytes(json) <= INLINE_JSON_BYTES) return { notification };
    // Kept for twice the retention from when it was raised: past the item's own TTL however late it is delivered.
    const expiresAt = this.table.expiresAt(Date.parse(notification.at) + this.table.retentionMs);
    const parts = await putGzippedParts(this.table, json, (part) => outboxPartKey(notification.id, part), expiresAt);
    return { notificationParts: parts };
  }

  async claimDelivery(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    try {
      await this.table.db.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: outboxKey(id),
          UpdateExpression: 'SET #status = :sending, #owner = :owner, leaseUntil = :lease',
          // deliveryClaimable (shared/pipeline/step-claim.ts), as a condition.
          ConditionExpression: '#status = :pending OR (#status = :sending AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status', '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':sending': 'sending',
            ':pending': 'pending',
            ':owner': owner,
            ':lease': leaseUntil,
            ':now': this.table.now(),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async markDelivered(id: string, messageId: string, at: number): Promise<void> {
    await this.table.db.send(
      new UpdateCommand({
        TableName: this.table.name,
        Key: outboxKey(id),
        UpdateExpression:
          'SET #status = :delivered, messageId = :messageId, deliveredAt = :at, #day = if_not_exists(loggedDay, :day), expiresAt = :expires ADD attempts :one REMOVE #owner, leaseUntil',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#owner': 'owner',
          '#day': TABLE_SCHEMA.dayIndex.partitionKey,
        },
        ExpressionAttributeValues: {
          ':delivered': 'delivered',
          ':messageId': messageId,
          ':at': at,
          // Outbox items written before notifications carried their own day are filed under the delivery day.
          ':day': DAY_INDEX.raisedOn(dayOf(at)),
          ':expires': this.table.expiresAt(at),
          ':one': 1,
        },
      }),
    );
  }

  async markFailed(id: string, error: string): Promise<void> {
    await this.table.db.send(
      new UpdateCommand({
        TableName: this.table.name,
        Key: outboxKey(id),
        UpdateExpression: 'SET #status = :pending, lastError = :error ADD attempts :one REMOVE #owner, leaseUntil',
        ExpressionAttributeNames: { '#status': 'status', '#owner': 'owner' },
        ExpressionAttributeValues: { ':pending': 'pending', ':error': error.slice(0, 1000), ':one': 1 },
      }),
    );
  }
}
