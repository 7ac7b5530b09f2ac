import { within } from '../shared/pipeline/activity.ts';
import type { NotificationRecord, Outbox, PendingNotification } from '../shared/pipeline/ports.ts';
import type { DynamoDbTable } from './dynamodb-table.ts';
import { decodeItem, outboxItem } from './table-items.ts';
import { DAY_INDEX, daysFrom } from './table-keys.ts';

/**
 * The reading half of the outbox in DynamoDB: pending notifications under `PENDING` in the `byDay` index, delivered
 * ones under the day they were raised. Queries only, through the table.
 */
export class DynamoDbOutboxReader implements Pick<Outbox, 'pending' | 'raisedBetween'> {
  constructor(protected readonly table: DynamoDbTable) {}

  async pending(): Promise<PendingNotification[]> {
    const items = await this.table.day(DAY_INDEX.pending);
    return items
      .map((item) => {
        const { notification, attempts, lastError } = decodeItem(outboxItem, item);
        return { notification, attempts: attempts ?? 0, ...(lastError !== undefined && { lastError }) };
      })
      .sort((a, b) => a.notification.at.localeCompare(b.notification.at));
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
