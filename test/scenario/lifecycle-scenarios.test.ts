import type { Notification } from '../../shared/engine/notification.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { defaultRuleSet, loadScenario, only, replayShipped, scenarioJson } from '../support/engine-fixtures.ts';

const ofKind = (notifications: readonly Notification[], kind: Notification['kind']) =>
  notifications.filter((n) => n.kind === kind);

describe('the lifecycle over messy outages', () => {
  describe('one policy backend behind twelve clusters that break over half an hour', () => {
    const CLUSTERS = [...loadScenario('fleet-policy-backend-outage').clusters.keys()];

    it('pages once, for the first cluster to break', async () => {
      const { notifications } = await replayShipped('fleet-policy-backend-outage');

      expect(ofKind(notifications, 'page').map((n) => [n.rule, n.clusters])).toEqual([
        ['webhook-blackhole', ['dev-01']],
      ]);
    });

    it('names every other cluster in an update as it joins', async () => {
      const { notifications } = await replayShipped('fleet-policy-backend-outage');
      const joined = notifications.filter((n) => n.reason === 'joined').flatMap((n) => n.changes);

      expect(
        joined
          .join(', ')
          .replace(/joined: /g, '')
          .split(', '),
      ).toEqual(CLUSTERS.slice(1));
    });

    it('resolves once, when the last cluster has recovered, naming all twelve', async () => {
      const { notifications, incidents } = await replayShipped('fleet-policy-backend-outage');
      const resolve = only(ofKind(notifications, 'resolve'));
      const lastRecovery = incidents
        .map((i) => i.recoveredAt ?? '')
        .sort()
        .at(-1);

      expect([resolve.clusters, resolve.at]).toEqual([CLUSTERS, lastRecovery]);
    });
  });

  describe('a webhook outage and a control-plane overload five minutes apart', () => {
    it('pages twice, each page naming its own cause on its own cluster', async () => {
      const { notifications } = await replayShipped('webhook-and-overload-minutes-apart');

      expect(ofKind(notifications, 'page').map((n) => [n.rule, n.clusters])).toEqual([
        ['webhook-blackhole', ['prod-euw1']],
        ['control-plane-degraded', ['prod-use2']],
      ]);
    });
  });

  describe('the OPA outage inside a four-hour upgrade window', () => {
    const scenario = loadScenario('outage-inside-maintenance-window');
    const window = scenario.maintenance[0];
    const onset = scenario.start + 120 * 60_000;

    it('pages within 15 minutes of onset, inside the window, saying which window it overrode', async () => {
      const page = only(ofKind((await replayShipped('outage-inside-maintenance-window')).notifications, 'page'));
      const at = Date.parse(page.at);

      expect([
        at - onset <= 15 * 60_000,
        at < (window?.to ?? 0),
        page.reason,
        page.changes.some((c) => c.includes('control-plane (master) upgrade')),
      ]).toEqual([true, true, 'maintenance-override', true]);
    });

    it('keeps the upgrade restarts before the outage muted', async () => {
      const { incidents, notifications } = await replayShipped('outage-inside-maintenance-window');
      const restarts = incidents.find(
        (i) => i.rule === 'control-plane-degraded' && i.resolvedAt !== undefined && Date.parse(i.resolvedAt) < onset,
      );

      expect([
        notifications.filter((n) => Date.parse(n.at) < onset),
        restarts?.notifiedAt,
        restarts?.mutedBy?.reason,
      ]).toEqual([[], undefined, 'control-plane (master) upgrade']);
    });
  });

  describe('an EKS upgrade inside its window', () => {
    it('sends nothing', async () => {
      expect((await replayShipped('upgrade-blips-inside-window')).notifications).toEqual([]);
    });

    it('sees the blips it mutes: three rules fire, and the window holds each back', async () => {
      const { incidents } = await replayShipped('upgrade-blips-inside-window');

      expect(incidents.map((i) => [i.rule, i.status, i.notifiedAt, i.mutedBy?.author])).toEqual([
        ['control-plane-degraded', 'resolved', undefined, 'scenarios/upgrade-blips-inside-window.json'],
        ['apiserver-restart-errors', 'resolved', undefined, 'scenarios/upgrade-blips-inside-window.json'],
        ['node-churn', 'resolved', undefined, 'scenarios/upgrade-blips-inside-window.json'],
      ]);
    });
  });

  describe('a repair loop at its capped pace on a 2,000-node cluster, for hours', () => {
    const scenario = loadScenario('repair-loop-at-capped-pace');
    // The control plane recovers at +330m and the last repair of the loop begins at +331m.
    const loopEnds = scenario.start + 332 * 60_000;

    it('pages once and keeps the incident open, without a flap, while the loop runs', async () => {
      const { notifications, incidents } = await replayShipped('repair-loop-at-capped-pace');
      const storm = incidents.filter((i) => i.cluster === 'batch-use1' && i.rule === 'node-repair-storm');

      expect(ofKind(notifications, 'page').map((n) => [n.rule, n.clusters])).toEqual([
        ['node-repair-storm', ['batch-use1']],
      ]);
      expect(storm.map((i) => [i.flaps, Date.parse(i.resolvedAt ?? '') >= loopEnds])).toEqual([[0, true]]);
    });

    it('sends nothing for the twin’s scale-down and rotation, and leaves the zone cut off to nodes-unreachable', async () => {
      const { notifications } = await replayShipped('repair-loop-at-capped-pace');
      const elsewhere = notifications.filter((n) => !n.clusters.includes('batch-use1') && n.kind !== 'resolve');

      expect(elsewhere.map((n) => [n.kind, n.rule, n.clusters])).toEqual([
        ['ticket', 'nodes-unreachable', ['batch-euw1']],
      ]);
    });
  });
});

describe('CloudWatch impaired in a Region', () => {
  it('pages once for the Region, naming it and CloudWatch, with the AWS Health Dashboard to check', async () => {
    const { notifications } = await replayShipped('regional-cloudwatch-impairment');
    const page = only(ofKind(notifications, 'page'));

    expect([page.title, page.clusters]).toEqual([
      'CloudWatch in us-east-1 may be impaired: cluster signals stopped arriving on prod-use1 and 2 more',
      ['prod-use1', 'stage-use1', 'dev-use1'],
    ]);
    expect(page.hints.some((hint) => /AWS Health Dashboard/.test(hint.text))).toBe(true);
  });

  it('opens one incident per Region when clusters of two Regions go dark together', async () => {
    const dark = { 'apiserver.requests': '900*30 _*30', 'apiserver.write.p99': '0.2*30 _*30' };
    const scenario = parseScenario(
      scenarioJson({
        clusters: {
          'prod-use1': { region: 'us-east-1', signals: dark },
          'dev-use1': { region: 'us-east-1', signals: dark },
          'prod-euw1': { region: 'eu-west-1', signals: dark },
        },
      }),
      'two-regions-dark.json',
    );
    const { notifications } = await replayScenario(scenario, { ruleSet: defaultRuleSet() });

    expect(ofKind(notifications, 'page').map((n) => [n.title, n.clusters])).toEqual([
      [
        'CloudWatch in us-east-1 may be impaired: cluster signals stopped arriving on prod-use1 and 1 more',
        ['prod-use1', 'dev-use1'],
      ],
      ['Cluster signals stopped arriving on prod-euw1', ['prod-euw1']],
    ]);
  });
});
