import type { SQSRecord } from 'aws-lambda';
import { deliverBatch } from '../../functions/delivery/deliver-batch.ts';
import {
  type ClaimOutcome,
  type DeliveryLedger,
  type DeliveryOutcome,
  deliverNotification,
  type IncidentChannel,
  type IncidentDeliveryState,
  type KeyUsed,
} from '../../shared/delivery/deliver.ts';
import type { PagingIntegration } from '../../shared/delivery/paging-integrations.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { renderMessage } from '../../shared/notify/message-bodies.ts';
import { notificationAt } from '../support/engine-fixtures.ts';

/** The ledger's rules on plain maps: what the DynamoDB ledger does with conditional writes. */
class MemoryLedger implements DeliveryLedger {
  readonly deliveries = new Map<string, { status: 'sending' | 'delivered'; leaseUntil: number; outcome?: string }>();
  readonly incidents = new Map<string, IncidentDeliveryState>();

  async claim(integration: string, notification: string, now: number, leaseMs: number): Promise<ClaimOutcome> {
    const key = `${integration}#${notification}`;
    const record = this.deliveries.get(key);
    if (record?.status === 'delivered') return 'delivered';
    if (record && record.leaseUntil >= now) return 'busy';
    this.deliveries.set(key, { status: 'sending', leaseUntil: now + leaseMs });
    return 'claimed';
  }

  async markDelivered(integration: string, notification: string, outcome: DeliveryOutcome): Promise<void> {
    this.deliveries.set(`${integration}#${notification}`, { status: 'delivered', leaseUntil: 0, outcome });
  }

  async release(integration: string, notification: string, _reason: string): Promise<void> {
    const record = this.deliveries.get(`${integration}#${notification}`);
    if (record?.status === 'sending') record.leaseUntil = 0;
  }

  async incident(integration: string, key: string): Promise<IncidentDeliveryState> {
    return { opened: false, closing: false, ...this.incidents.get(`${integration}#${key}`) };
  }

  async markOpened(integration: string, key: string, _now: number, openedWith: KeyUsed): Promise<void> {
    const state = await this.incident(integration, key);
    if (state.opened) return;
    this.incidents.set(`${integration}#${key}`, { ...state, opened: true, ...(openedWith && { openedWith }) });
  }

  async markClosing(integration: string, key: string): Promise<void> {
    this.incidents.set(`${integration}#${key}`, { ...(await this.incident(integration, key)), closing: true });
  }
}

/**
 * A paging tool's incidents by key, and every call it got, as `open KEY` / `update KEY` / `close KEY`, with ` with K`
 * when a call named the key the incident was opened with.
 */
class RecordingChannel implements IncidentChannel {
  readonly calls: string[] = [];
  readonly open_ = new Set<string>();
  /** The key an open goes out with: the current one. */
  currentKey = 'key-1';
  failNext = 0;
  /** Runs inside the next call, before it reaches the tool: another delivery interleaving with this one. */
  during?: () => Promise<void>;

  private async call(kind: string, notification: Notification, openedWith?: KeyUsed): Promise<void> {
    const during = this.during;
    this.during = undefined;
    await during?.();
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('503 from the vendor, after retries');
    }
    const key = notification.group ?? '';
    this.calls.push(`${kind} ${key}${openedWith && openedWith !== this.currentKey ? ` with ${openedWith}` : ''}`);
    if (kind === 'open') this.open_.add(key);
    if (kind === 'close') this.open_.delete(key);
  }

  open = async (n: Notification) => {
    await this.call('open', n);
    return this.currentKey;
  };
  update = (n: Notification, openedWith: KeyUsed) => this.call('update', n, openedWith);
  close = (n: Notification, openedWith: KeyUsed) => this.call('close', n, openedWith);
}

const INTEGRATION: PagingIntegration = {
  id: 'pagerduty:sentinel/pd',
  subscriber: { protocol: 'pagerduty', routingKeySecret: { secretName: 'sentinel/pd' }, region: 'us' },
  topic: 'paging',
};

function story(group = 'dev-a/webhook-blackhole/2024-05-06T08:00:00Z') {
  const base = { rule: 'webhook-blackhole', group, incidents: [group] };
  return {
    page: notificationAt({ ...base, at: '2024-05-06T08:00:00Z', kind: 'page' }),
    update: notificationAt({ ...base, at: '2024-05-06T08:10:00Z', kind: 'update', reason: 'new-symptom' }),
    resolve: notificationAt({ ...base, at: '2024-05-06T09:00:00Z', kind: 'resolve' }),
  };
}

function setup() {
  const ledger = new MemoryLedger();
  const channel = new RecordingChannel();
  let clock = Date.parse('2024-05-06T09:00:00Z');
  const deps = {
    integrations: [INTEGRATION],
    channelFor: () => channel,
    ledger,
    now: () => clock,
    leaseMs: 60_000,
  };
  return { ledger, channel, deps, advance: (ms: number) => (clock += ms) };
}

describe('delivering to a paging tool', () => {
  it('opens the incident on the page, updates it, and closes it on the resolve', async () => {
    const { channel, deps } = setup();
    const { page, update, resolve } = story();

    for (const notification of [page, update, resolve]) await deliverNotification(notification, deps);

    expect(channel.calls).toEqual([`open ${page.group}`, `update ${page.group}`, `close ${page.group}`]);
  });

  it('sends a redelivered notification once', async () => {
    const { channel, deps } = setup();
    const { page, update } = story();

    await deliverNotification(page, deps);
    await deliverNotification(update, deps);
    const again = await deliverNotification(update, deps);

    expect(again).toEqual([{ integration: INTEGRATION.id, outcome: 'duplicate' }]);
    expect(channel.calls).toHaveLength(2);
  });

  it('sends nothing for a resolve that comes before its page, and drops the late page: no trigger for an incident already over', async () => {
    const { channel, deps } = setup();
    const { page, resolve } = story();

    const early = await deliverNotification(resolve, deps);
    const late = await deliverNotification(page, deps);

    expect(channel.calls).toEqual([]);
    expect([early, late]).toEqual([
      [{ integration: INTEGRATION.id, outcome: 'unopened' }],
      [{ integration: INTEGRATION.id, outcome: 'stale' }],
    ]);
  });

  it('updates and closes an incident with the key it was opened with, after the key was rotated', async () => {
    const { channel, deps } = setup();
    const { page, update, resolve } = story();

    await deliverNotification(page, deps);
    channel.currentKey = 'key-2';
    await deliverNotification(update, deps);
    await deliverNotification(resolve, deps);

    expect(channel.calls).toEqual([
      `open ${page.group}`,
      `update ${page.group} with key-1`,
      `close ${page.group} with key-1`,
    ]);
  });

  it('closes again when a resolve ran while its page was on the way to the tool', async () => {
    const { channel, deps } = setup();
    const { page, resolve } = story();
    // The resolve runs to the end while the page's open is in flight: it finds no open recorded, so it opens and
    // closes; then the page's open lands and would leave the incident open.
    channel.during = async () => {
      await deliverNotification(resolve, deps);
    };

    await deliverNotification(page, deps);

    expect(channel.open_.size).toBe(0);
    expect(channel.calls.at(-1)).toBe(`close ${page.group}`);
  });

  it('fails a delivery the tool refused, and lets the retry claim it at once', async () => {
    const { channel, deps } = setup();
    const { page } = story();
    channel.failNext = 1;

    await expect(deliverNotification(page, deps)).rejects.toThrow(/not delivered to pagerduty:sentinel\/pd: 503/);
    const retried = await deliverNotification(page, deps);

    expect(retried).toEqual([{ integration: INTEGRATION.id, outcome: 'opened' }]);
  });

  it('refuses a notification another run holds, until its lease ends', async () => {
    const { ledger, deps, advance } = setup();
    const { page } = story();
    await ledger.claim(INTEGRATION.id, page.id, deps.now(), deps.leaseMs);

    await expect(deliverNotification(page, deps)).rejects.toThrow(/being delivered .* by another run/);
    advance(deps.leaseMs + 1);
    await expect(deliverNotification(page, deps)).resolves.toEqual([
      { integration: INTEGRATION.id, outcome: 'opened' },
    ]);
  });

  it('reaches only the integrations whose clusters the notification names', async () => {
    const { channel, deps } = setup();
    const { page } = story();
    const elsewhere = { ...INTEGRATION, id: 'opsgenie:prod', clusters: ['prod-euw1'] };

    const delivered = await deliverNotification(page, { ...deps, integrations: [INTEGRATION, elsewhere] });

    expect(delivered.map((d) => d.integration)).toEqual([INTEGRATION.id]);
    expect(channel.calls).toHaveLength(1);
  });

  it('sends a fleet page cut to fit SNS to a cluster-filtered integration, as the SNS filter would', async () => {
    const { channel, deps } = setup();
    const clusters = Array.from({ length: 3000 }, (_, i) => `prod-cluster-with-a-rather-long-name-${i}`);
    const { page } = story();
    const fleet = { ...page, clusters, incidents: clusters.map((c) => `${c}/webhook-blackhole/${page.at}`) };
    const { bodies } = renderMessage(fleet);
    const record = { messageId: 'm1', body: bodies.sqs } as SQSRecord;
    const lastOnly = { ...INTEGRATION, id: 'opsgenie:last', clusters: ['prod-cluster-with-a-rather-long-name-2999'] };
    const logger = { info: () => undefined, error: () => undefined };

    const answer = await deliverBatch({ ...deps, integrations: [lastOnly], logger }, [record]);

    expect(JSON.parse(bodies.sqs).clusters).not.toContain(lastOnly.clusters[0]);
    expect(answer.batchItemFailures).toEqual([]);
    expect(channel.calls).toEqual([`open ${page.group}`]);
  });
});
