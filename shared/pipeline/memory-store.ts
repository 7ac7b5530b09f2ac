import type { Incident } from '../engine/incident.ts';
import type { Notification } from '../engine/notification.ts';
import type { IncidentStore, PendingNotification, StepClaim } from './ports.ts';

interface OutboxEntry {
  notification: Notification;
  status: 'pending' | 'delivered';
  attempts: number;
  lastError?: string;
  owner?: string;
  leaseUntil?: number;
  messageId?: string;
}

/**
 * The incident store in memory, for replay and tests. It keeps the same claim semantics as the DynamoDB store so
 * that replay exercises the same path.
 */
export class MemoryIncidentStore implements IncidentStore {
  private readonly incidents = new Map<string, Incident>();
  private readonly outbox = new Map<string, OutboxEntry>();
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

  /** Every incident ever recorded, for reports and the digest. */
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
      .filter((e) => e.status === 'pending')
      .sort((a, b) => a.notification.at.localeCompare(b.notification.at))
      .map(({ notification, attempts, lastError }) => ({ notification, attempts, ...(lastError && { lastError }) }));
  }

  async claimDelivery(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    const entry = this.outbox.get(id);
    if (entry?.status !== 'pending') return false;
    if (entry.owner && entry.owner !== owner && (entry.leaseUntil ?? 0) > this.now()) return false;
    Object.assign(entry, { owner, leaseUntil });
    return true;
  }

  async markDelivered(id: string, messageId: string): Promise<void> {
    const entry = this.outbox.get(id);
    if (entry) Object.assign(entry, { status: 'delivered', messageId, attempts: entry.attempts + 1 });
  }

  async markFailed(id: string, error: string): Promise<void> {
    const entry = this.outbox.get(id);
    if (entry)
      Object.assign(entry, { attempts: entry.attempts + 1, lastError: error, owner: undefined, leaseUntil: undefined });
  }
}
