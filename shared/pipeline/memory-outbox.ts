import type { Notification } from '../engine/notification.ts';
import { within } from './activity.ts';
import type { NotificationRecord, Outbox, PendingNotification } from './ports.ts';
import { deliveryClaimable } from './step-claim.ts';

interface OutboxEntry {
  notification: Notification;
  status: NotificationRecord['status'];
  attempts: number;
  lastError?: string;
  owner?: string;
  leaseUntil?: number;
  deliveredAt?: number;
}

/** The outbox in memory, for replay and tests, with the claim semantics of the DynamoDB outbox. */
export class MemoryOutbox implements Outbox {
  private readonly entries = new Map<string, OutboxEntry>();

  constructor(private readonly now: () => number) {}

  async enqueue(notifications: readonly Notification[]): Promise<void> {
    for (const notification of notifications) {
      if (!this.entries.has(notification.id))
        this.entries.set(notification.id, { notification, status: 'pending', attempts: 0 });
    }
  }

  async pending(): Promise<PendingNotification[]> {
    return [...this.entries.values()]
      .filter((e) => e.status !== 'delivered')
      .sort((a, b) => a.notification.at.localeCompare(b.notification.at))
      .map(({ notification, attempts, lastError }) => ({ notification, attempts, ...(lastError && { lastError }) }));
  }

  async claimDelivery(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    const entry = this.entries.get(id);
    // As in DynamoDB: a notification being sent is claimed again only when its lease has run out, by anyone.
    if (!entry || !deliveryClaimable(entry, this.now())) return false;
    Object.assign(entry, { status: 'sending', owner, leaseUntil });
    return true;
  }

  async markDelivered(id: string, _messageId: string, at: number): Promise<void> {
    const entry = this.entries.get(id);
    if (entry) Object.assign(entry, { status: 'delivered', deliveredAt: at, attempts: entry.attempts + 1 });
  }

  async markFailed(id: string, error: string): Promise<void> {
    const entry = this.entries.get(id);
    if (entry) {
      Object.assign(entry, { status: 'pending', attempts: entry.attempts + 1, lastError: error });
      delete entry.owner;
      delete entry.leaseUntil;
    }
  }

  async raisedBetween(from: number, to: number): Promise<NotificationRecord[]> {
    return [...this.entries.values()]
      .filter((e) => within(Date.parse(e.notification.at), from, to))
      .map((e) => ({
        notification: e.notification,
        status: e.status,
        attempts: e.attempts,
        ...(e.deliveredAt !== undefined && { deliveredAt: e.deliveredAt }),
        ...(e.lastError !== undefined && { lastError: e.lastError }),
      }));
  }
}
