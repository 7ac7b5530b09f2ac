import type { Notification } from '../../shared/engine/notification.ts';
import type { ReplayResult } from '../../shared/scenario/replay.ts';
import { replayShipped } from '../support/engine-fixtures.ts';

/**
 * A webhook under failurePolicy Fail whose rollouts fail a share of its calls for two or three minutes (pods ready
 * before they serve) is the webhook-availability-gaps notice's business, not a page; a narrow webhook that loses its
 * backend fails fewer calls, but minute after minute, and pages within three minutes.
 */

const MINUTE = 60_000;
const pagesOn = (result: ReplayResult, cluster: string): Notification[] =>
  result.notifications.filter((n) => n.clusters.includes(cluster) && n.kind === 'page');

describe('Gatekeeper rollouts under failurePolicy Fail', () => {
  it.each([
    ['gatekeeper-fail-closed-rollouts-eight-and-1500-nodes', 'gk-euw3'],
    ['gatekeeper-fail-closed-rollouts-eight-and-1500-nodes', 'gk-small'],
    ['gatekeeper-fail-closed-rollouts-other-sizes', 'mid-euw3'],
    ['gatekeeper-fail-closed-rollouts-other-sizes', 'huge-euw3'],
    ['gatekeeper-fail-closed-rollouts-other-sizes', 'straddle-euw3'],
  ])('page no one: %s, %s', async (scenario, cluster) => {
    const result = await replayShipped(scenario);

    expect(pagesOn(result, cluster).map((n) => n.rule)).toEqual([]);
  });

  it('leave a narrow webhook that fails closed for real paging within 3 minutes, once', async () => {
    const result = await replayShipped('gatekeeper-fail-closed-rollouts-other-sizes');
    const pages = pagesOn(result, 'gk-real-euw3');
    const minutes = pages.map((n) => (Date.parse(n.at) - result.scenario.start) / MINUTE);

    expect([pages.map((n) => n.rule), minutes.every((m) => m >= 200 && m <= 203)]).toEqual([
      ['webhook-blackhole'],
      true,
    ]);
  });
});
