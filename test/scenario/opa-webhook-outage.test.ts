import type { Notification } from '../../shared/engine/notification.ts';
import type { ReplayResult } from '../../shared/scenario/replay.ts';
import { only, replayShipped } from '../support/engine-fixtures.ts';

/** When the webhook's backend stopped answering, after the Jetstack post-mortem. */
const ONSET = Date.parse('2019-03-04T09:30:00Z');
/** When the webhook configuration was deleted and writes recovered. */
const RECOVERY = Date.parse('2019-03-04T10:45:00Z');
const MAINTENANCE = { from: Date.parse('2019-03-04T09:00:00Z'), to: Date.parse('2019-03-04T11:00:00Z') };

describe('replay of the OPA webhook outage', () => {
  let result: ReplayResult;
  const ofKind = (kind: Notification['kind']) => result.notifications.filter((n) => n.kind === kind);

  beforeAll(async () => {
    result = await replayShipped('opa-webhook-outage');
  });

  it('pages exactly once, for webhook-blackhole', () => {
    expect(ofKind('page').map((n) => n.rule)).toEqual(['webhook-blackhole']);
  });

  it('pages within 3 minutes of the onset', () => {
    const latency = Date.parse(only(ofKind('page')).at) - ONSET;

    expect(latency).toBeGreaterThanOrEqual(0);
    expect(latency).toBeLessThanOrEqual(3 * 60_000);
  });

  it('pages although the cluster is in its declared maintenance window', () => {
    const at = Date.parse(only(ofKind('page')).at);

    expect(at).toBeGreaterThanOrEqual(MAINTENANCE.from);
    expect(at).toBeLessThan(MAINTENANCE.to);
  });

  it('files one ticket, for webhook-latency-tax, before the outage', () => {
    const ticket = only(ofKind('ticket'));

    expect([ticket.rule, Date.parse(ticket.at) < ONSET]).toEqual(['webhook-latency-tax', true]);
  });

  it('brings node-repair-storm as an update of the page, listing it as a symptom', () => {
    const update = only(ofKind('update').filter((n) => n.changes.includes('new symptom: node-repair-storm')));

    expect([update.rule, update.symptoms, update.incidents]).toEqual([
      'webhook-blackhole',
      expect.arrayContaining(['node-repair-storm']),
      only(ofKind('page')).incidents,
    ]);
  });

  it('never sends a notification rooted in node-repair-storm', () => {
    expect(result.notifications.filter((n) => n.rule === 'node-repair-storm')).toEqual([]);
  });

  it('resolves the page after the webhook recovers', () => {
    const resolve = only(ofKind('resolve').filter((n) => n.rule === 'webhook-blackhole'));

    expect(resolve.incidents).toEqual(only(ofKind('page')).incidents);
    expect(Date.parse(resolve.at)).toBeGreaterThan(RECOVERY);
  });

  it('names the hint to delete the webhook configuration in the page', () => {
    expect(only(ofKind('page')).hints.some((h) => h.text.includes('failurePolicy: Ignore'))).toBe(true);
  });
});
