import type { Notification } from '../../shared/engine/notification.ts';
import type { ReplayResult } from '../../shared/scenario/replay.ts';
import { replayShipped } from '../support/engine-fixtures.ts';

/**
 * An outage that flaps inside a maintenance window (minutes at half or more, minutes at a few percent) never holds
 * an m of n and never goes 30 minutes without a clear, yet fails a fifth to a quarter of all requests: it pages
 * through the window within 15 minutes, while an upgrade's restart bursts stay muted.
 */

const MINUTE = 60_000;
const pagesOn = (result: ReplayResult, cluster: string): Notification[] =>
  result.notifications.filter((n) => n.clusters.includes(cluster) && n.kind === 'page');

describe('a flapping outage inside a maintenance window', () => {
  let result: ReplayResult;
  beforeAll(async () => {
    result = await replayShipped('flapping-outage-inside-maintenance-window');
  });

  it.each([
    ['prod-euw2', 120],
    ['edge-euw2', 100],
  ])('pages control-plane-degraded once on %s within 15 minutes', (cluster, onset) => {
    const pages = pagesOn(result, cluster);
    const late = pages.map((n) => (Date.parse(n.at) - result.scenario.start) / MINUTE - onset);

    expect([pages.map((n) => n.rule), late.every((m) => m >= 0 && m <= 15)]).toEqual([
      ['control-plane-degraded'],
      true,
    ]);
  });

  it('says which severe condition let it through the window', () => {
    const [page] = pagesOn(result, 'edge-euw2');

    expect(page?.evidence.flatMap((e) => e.items.map((i) => i.over))).toContain(
      'avg over 15m, counts pooled, at its 95 % lower bound',
    );
  });

  it('keeps the upgrade’s restart bursts muted', () => {
    expect(result.notifications.filter((n) => n.clusters.includes('stage-euw2'))).toEqual([]);
  });
});
