import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Notification } from '../shared/engine/notification.ts';
import { within } from '../shared/pipeline/activity.ts';
import type { NotificationRecord, Outbox, PendingNotification } from '../shared/pipeline/ports.ts';
import { type DynamoDbTable, isConditionFailure, unlessConditionFails } from './dynamodb-table.ts';
import { decodeItem, outboxItem } from './table-items.ts';
import { DAY_INDEX, dayIndexEntry, dayOf, daysFrom, outboxKey } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/**
 * The outbox in DynamoDB (`OUTBOX`/`<notification id>`): a notification is indexed under `PENDING` until it is
 * delivered, then under the day it was raised, which is where the digest of its week looks for it.
 */
export class DynamoDbOutbox implements Outbox {
  constructor(private readonly table: DynamoDbTable) {}

  async enqueue(notifications: readonly Notification[]): Promise<void> {
    for (const notification of notifications) {
      await unlessConditionFails(
        this.table.db.send(
          new PutCommand({
            TableName: this.table.name,
            Item: {
              ...outboxKey(notification.id),
              notification,
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
    }
  }

  async pending(): Promise<PendingNotification[]> {
    const items = await this.table.day(DAY_INDEX.pending);
    return items
      .map((item) => {
        const { notification, attempts, lastError } = decodeItem(outboxItem, item);
        return { notification, attempts: attempts ?? 0, ...(lastError !== undefined && { lastError }) };
      })
      .sort((a, b) => a.notification.at.localeCompare(b.notification.at));
  }

  async claimDelivery(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    try {
      await this.table.db.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: outboxKey(id),
          UpdateExpression: 'SET #status = :sending, #owner = :owner, leaseUntil = :lease',
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

  async raisedBetween(from: number, to: number): Promise<NotificationRecord[]> {
    // Delivered notifications are under the day they were raised; pending ones, of any day, under PENDING.
    const [delivered, pending] = await Promise.all([
      this.table.days(daysFrom(from, to).map(DAY_INDEX.raisedOn)),
      this.table.day(DAY_INDEX.pending),
    ]);
    return [...delivered, ...pending]
      .map((item): NotificationRecord => {
        const { notification, status, attempts, deliveredAt, lastError } = decodeItem(outboxItem, item);
        return {
          notification,
          status,
          attempts: attempts ?? 0,
          ...(deliveredAt !== undefined && { deliveredAt }),
          ...(lastError !== undefined && { lastError }),
        };
      })
      .filter((record) => within(Date.parse(record.notification.at), from, to));
  }
}
