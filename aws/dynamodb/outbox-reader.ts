import type { Notification } from '../../shared/engine/notification.ts';
import { within } from '../../shared/pipeline/activity.ts';
import type { NotificationRecord, Outbox, PendingNotification } from '../../shared/pipeline/ports.ts';
import type { DynamoDbTable } from './table.ts';
import {
  decodeItem,
  decodeJson,
  gzippedPartItem,
  MalformedItemError,
  notificationSchema,
  outboxItem,
} from './table-items.ts';
import { DAY_INDEX, daysFrom, outboxKey, outboxPartsPrefix, PARTITION } from './table-keys.ts';
import { gunzippedJson } from './table-limits.ts';

/**
 * The reading half of the outbox in DynamoDB: pending notifications under `PENDING` in the `byDay` index, delivered
 * ones under the day they were raised. Queries only, through the table.
 */
export class DynamoDbOutboxReader implements Pick<Outbox, 'pending' | 'raisedBetween'> {
  constructor(protected readonly table: DynamoDbTable) {}

  async pending(): Promise<PendingNotification[]> {
    const items = await this.table.day(DAY_INDEX.pending);
    const pending = await Promise.all(
      items.map(async (item) => {
        const { attempts, lastError, ...stored } = decodeItem(outboxItem, item);
        const notification = await this.notificationOf(stored, item);
        return { notification, attempts: attempts ?? 0, ...(lastError !== undefined && { lastError }) };
      }),
    );
    return pending.sort((a, b) => a.notification.at.localeCompare(b.notification.at));
  }

  async raisedBetween(from: number, to: number): Promise<NotificationRecord[]> {
    // Delivered notifications are under the day they were raised; pending ones, of any day, under PENDING.
    const [delivered, pending] = await Promise.all([
      this.table.days(daysFrom(from, to).map(DAY_INDEX.raisedOn)),
      this.table.day(DAY_INDEX.pending),
    ]);
    const records = await Promise.all(
      [...delivered, ...pending].map(async (item): Promise<NotificationRecord> => {
        const { status, attempts, deliveredAt, lastError, ...stored } = decodeItem(outboxItem, item);
        return {
          notification: await this.notificationOf(stored, item),
          status,
          attempts: attempts ?? 0,
          ...(deliveredAt !== undefined && { deliveredAt }),
          ...(lastError !== undefined && { lastError }),
        };
      }),
    );
    return records.filter((record) => within(Date.parse(record.notification.at), from, to));
  }

  /** The notification an outbox item holds, or that its parts hold when it was too large for one item. */
  private async notificationOf(
    stored: { notification?: Notification | undefined; notificationParts?: number | undefined },
    item: Record<string, unknown>,
  ): Promise<Notification> {
    if (stored.notification) return stored.notification;
    const id = String(item.sk);
    const key = outboxKey(id);
    const parts = await this.table.partitionPrefix(PARTITION.outbox, outboxPartsPrefix(id));
    if (stored.notificationParts === undefined || parts.length !== stored.notificationParts) {
      const found = `${parts.length} of ${stored.notificationParts ?? 'no'} parts`;
      throw new MalformedItemError(key, [{ path: 'notificationParts', message: `holds no notification (${found})` }]);
    }
    const payload = parts.map((part) => decodeItem(gzippedPartItem, part).payload);
    return decodeJson(notificationSchema, gunzippedJson(payload), key);
  }
}
