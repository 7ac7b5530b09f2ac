import { readFileSync } from 'node:fs';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario, type Scenario } from '../../shared/scenario/scenario.ts';
import { defaultRuleSet, loadScenario, replayShipped, repoPath } from '../support/engine-fixtures.ts';

const pages = (notifications: readonly Notification[]) => notifications.filter((n) => n.kind === 'page');

/** The scenario's clusters in a deployment configuration, each with the labels given. */
function configOf(scenario: Scenario, labels: (cluster: string) => Record<string, string>, by: readonly string[]) {
  const clusters = [...scenario.clusters.keys()].map((name) => ({ name, labels: labels(name) }));
  return loadConfig({ clusters, grouping: { by } }, 'test config').config;
}

describe('grouping by label', () => {
  describe('a prod outage 13 minutes after an unrelated staging one, grouped by environment', () => {
    it('pages twice, once per environment, each under its own dedup key', async () => {
      const { notifications, checks } = await replayShipped('staging-then-prod-webhook-outages');

      expect(pages(notifications).map((n) => [n.clusters, n.group])).toEqual([
        [['staging-euw1'], expect.any(String)],
        [['prod-euw1'], expect.any(String)],
      ]);
      expect(new Set(pages(notifications).map((n) => n.group)).size).toBe(2);
      expect(checks.filter((c) => !c.passed)).toEqual([]);
    });

    it('keeps every notification about prod under the prod page dedup key', async () => {
      const { notifications } = await replayShipped('staging-then-prod-webhook-outages');
      const prodPage = pages(notifications).find((n) => n.clusters.includes('prod-euw1'));
      const aboutProd = notifications.filter((n) => n.clusters.includes('prod-euw1'));

      expect(aboutProd.map((n) => [n.kind, n.group])).toEqual([
        ['page', prodPage?.group],
        ['resolve', prodPage?.group],
      ]);
    });

    it('still joins a second staging cluster to the staging page as an update', async () => {
      const { notifications } = await replayShipped('staging-then-prod-webhook-outages');
      const stagingPage = pages(notifications).find((n) => n.clusters.includes('staging-euw1'));

      expect(notifications.filter((n) => n.reason === 'joined').map((n) => [n.changes, n.group])).toEqual([
        [['joined: staging-use1'], stagingPage?.group],
      ]);
    });

    it('merges prod into the staging page without grouping.by, which is what grouping.by is for', async () => {
      const scenario = loadScenario('staging-then-prod-webhook-outages');
      const { grouping: _, ...fleetWide } = scenario;
      const { notifications } = await replayScenario(fleetWide, { ruleSet: defaultRuleSet() });

      expect(pages(notifications).map((n) => n.clusters)).toEqual([['staging-euw1']]);
    });

    it('groups the same from a deployment configuration carrying the labels', async () => {
      const scenario = loadScenario('staging-then-prod-webhook-outages');
      const config = configOf(scenario, (name) => ({ environment: name.startsWith('prod') ? 'prod' : 'staging' }), [
        'environment',
      ]);
      const { notifications } = await replayScenario(scenario, { ruleSet: defaultRuleSet(), config });

      expect(pages(notifications).map((n) => n.clusters)).toEqual([['staging-euw1'], ['prod-euw1']]);
    });
  });

  describe('the twelve-cluster fleet outage', () => {
    it('still pages once when every cluster shares the grouped labels', async () => {
      const scenario = loadScenario('fleet-policy-backend-outage');
      const config = configOf(scenario, () => ({ environment: 'dev', team: 'platform' }), ['environment', 'team']);
      const { notifications, checks } = await replayScenario(scenario, { ruleSet: defaultRuleSet(), config });

      expect(pages(notifications).map((n) => n.clusters)).toEqual([['dev-01']]);
      expect(checks.filter((c) => !c.passed)).toEqual([]);
    });

    it('pages once per team when the teams differ', async () => {
      const scenario = loadScenario('fleet-policy-backend-outage');
      const team = (name: string) => (Number(name.slice(-2)) % 2 === 0 ? 'even' : 'odd');
      const config = configOf(scenario, (name) => ({ team: team(name) }), ['team']);
      const { notifications } = await replayScenario(scenario, { ruleSet: defaultRuleSet(), config });

      expect(pages(notifications).map((n) => n.clusters)).toEqual([['dev-01'], ['dev-02']]);
    });
  });
});

describe('a silence by label in a scenario', () => {
  const withSilence = (silence: Record<string, unknown>) => {
    const file = 'scenarios/staging-then-prod-webhook-outages.json';
    const raw = JSON.parse(readFileSync(repoPath(file), 'utf8')) as Record<string, unknown>;
    return parseScenario({ ...raw, expect: [], silences: [silence] }, file);
  };
  const teardown = { from: '+0m', to: '+4h', reason: 'staging teardown', author: 'alice' };

  it('holds back even the staging webhook page when it includes pages, and not prod', async () => {
    const scenario = withSilence({ ...teardown, matchers: ['environment=staging'], includePages: true });
    const { notifications } = await replayScenario(scenario, { ruleSet: defaultRuleSet() });

    expect(pages(notifications).map((n) => n.clusters)).toEqual([['prod-euw1']]);
  });

  it('pages staging through a silence that does not include pages, naming the silence', async () => {
    const scenario = withSilence({ ...teardown, matchers: ['environment=staging'] });
    const { notifications } = await replayScenario(scenario, { ruleSet: defaultRuleSet() });
    const staging = pages(notifications).find((n) => n.clusters.includes('staging-euw1'));

    expect(staging?.changes).toEqual([
      'staging-euw1: paging despite silence #1 "staging teardown" (alice, until 12:00Z): webhook-blackhole is never muted',
    ]);
  });

  it('refuses a matcher that is not one, at its path', () => {
    expect(() => withSilence({ ...teardown, matchers: ['environment'] })).toThrow(
      /\$\.silences\[0\]\.matchers\[0\]: expected a matcher/,
    );
  });
});
