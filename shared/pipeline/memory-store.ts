import type { Incident } from '../engine/incident.ts';
import type { Notification } from '../engine/notification.ts';
import { activityOf } from './activity.ts';
import type {
  Activity,
  IncidentStore,
  NotificationRecord,
  PendingNotification,
  PollRecord,
  StepClaim,
} from './ports.ts';

interface OutboxEntry {
  notification: Notification;
  status: NotificationRecord['status'];
  attempts: number;
  lastError?: string;
  owner?: string;
  leaseUntil?: number;
  deliveredAt?: number;
}

/**
 * The incident store in memory, for replay and tests. It keeps the same claim semantics as the DynamoDB store so
 * that replay exercises the same path.
 */
export class MemoryIncidentStore implements IncidentStore {
  private readonly incidents = new Map<string, Incident>();
  private readonly outbox = new Map<string, OutboxEntry>();
  private readonly polls: PollRecord[] = [];
  private claimed: { at: number; owner: string; leaseUntil: number } | undefined;
  private doneStep = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number) {}

  async claimStep(at: number, owner: string, leaseUntil: number): Promise<StepClaim> {
    if (at <= this.doneStep) return at === this.doneStep ? 'done' : 'stale';
    if (this.claimed && this.claimed.at > at) return 'stale';
    if (
      this.claimed &&
      this.claimed.at === at &&
      this.claimed.owner !== owner &&
      this.claimed.leaseUntil > this.now()
    ) {
      return 'busy';
    }
    this.claimed = { at, owner, leaseUntil };
    return 'claimed';
  }

  async openIncidents(): Promise<Incident[]> {
    return [...this.incidents.values()].filter((i) => i.status === 'open');
  }

  /** Every incident ever recorded, for reports. */
  allIncidents(): Incident[] {
    return [...this.incidents.values()];
  }

  async recordStep(at: number, _owner: string, changed: readonly Incident[], notifications: readonly Notification[]) {
    for (const notification of notifications) {
      if (!this.outbox.has(notification.id))
        this.outbox.set(notification.id, { notification, status: 'pending', attempts: 0 });
    }
    for (const incident of changed) this.incidents.set(incident.id, incident);
    this.doneStep = Math.max(this.doneStep, at);
  }

  async pendingNotifications(): Promise<PendingNotification[]> {
    return [...this.outbox.values()]
      .filter((e) => e.status !== 'delivered')
      .sort((a, b) => a.notification.at.localeCompare(b.notification.at))
      .map(({ notification, attempts, lastError }) => ({ notification, attempts, ...(lastError && { lastError }) }));
  }

  async claimDelivery(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    const entry = this.outbox.get(id);
    if (!entry || entry.status === 'delivered') return false;
    // As in DynamoDB: a notification being sent is claimed again only when its lease has run out, by anyone.
    if (entry.status === 'sending' && (entry.leaseUntil ?? 0) > this.now()) return false;
    Object.assign(entry, { status: 'sending', owner, leaseUntil });
    return true;
  }

  async markDelivered(id: string, _messageId: string, at: number): Promise<void> {
    const entry = this.outbox.get(id);
    if (entry) Object.assign(entry, { status: 'delivered', deliveredAt: at, attempts: entry.attempts + 1 });
  }

  async markFailed(id: string, error: string): Promise<void> {
    const entry = this.outbox.get(id);
    if (entry) {
      Object.assign(entry, { status: 'pending', attempts: entry.attempts + 1, lastError: error });
      delete entry.owner;
      delete entry.leaseUntil;
    }
  }

  async recordPoll(record: PollRecord): Promise<void> {
    this.polls.push(record);
  }

  async activityBetween(from: number, to: number): Promise<Activity> {
    const notifications: NotificationRecord[] = [...this.outbox.values()].map((e) => ({
      notification: e.notification,
      status: e.status,
      attempts: e.attempts,
      ...(e.deliveredAt !== undefined && { deliveredAt: e.deliveredAt }),
      ...(e.lastError !== undefined && { lastError: e.lastError }),
    }));
    return activityOf({ incidents: this.allIncidents(), notifications, polls: this.polls }, from, to);
  }
}
