import { loadConfig } from '../../shared/config/deployment-config.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { defaultRuleSet, scenarioJson } from '../support/engine-fixtures.ts';

const CLUSTERS = ['dev-a', 'dev-b', 'dev-c', 'dev-d', 'dev-e'];

/**
 * One webhook backend behind five clusters that break two minutes apart. Writes stay fast (the failures show as 5xx
 * and webhook errors), so no tripwire arms: a quiet cluster is read on the staggered slow cycle, a paging one every
 * minute, as the deployed poller reads them.
 */
const scenario = parseScenario(
  scenarioJson({
    clusters: Object.fromEntries(
      CLUSTERS.map((name, index) => {
        const [before, after] = [30 + 2 * index, 60 - 2 * index];
        return [
          name,
          {
            signals: {
              'apiserver.write.p99': '0.3*140',
              'apiserver.requests': '1000*140',
              'apiserver.5xx': `1*${before} 100*40 1*${after + 10}`,
              'webhook.requests': '500*140',
              'webhook.failures': `0*${before} 500*40 0*${after + 10}`,
              'webhook.p99': `0.05*${before} 10*40 0.05*${after + 10}`,
            },
          },
        ];
      }),
    ),
  }),
  'scenarios/fleet-slow-cycle.json',
);

const replayWith = async (every: string) => {
  const { config } = loadConfig({ clusters: CLUSTERS.map((name) => ({ name })), poll: { every } }, 'sentinel.json');
  return replayScenario(scenario, { ruleSet: defaultRuleSet(), config });
};

/** What on-call hears: how many pages, which clusters the page and its updates named, and what the resolves named. */
const heard = (notifications: readonly Notification[]) => [
  notifications.filter((n) => n.kind === 'page').length,
  [...new Set(notifications.filter((n) => n.kind !== 'resolve').flatMap((n) => n.clusters))].sort(),
  notifications.filter((n) => n.kind === 'resolve').map((n) => [...n.clusters].sort()),
];

describe('fleet incidents through the poll', () => {
  it('pages once for clusters read on the staggered slow cycle, as when every cluster is read every minute', async () => {
    const [slow, everyMinute] = await Promise.all([replayWith('10m'), replayWith('1m')]);

    expect([heard(slow.notifications), heard(everyMinute.notifications)]).toEqual([
      [1, CLUSTERS, [CLUSTERS]],
      [1, CLUSTERS, [CLUSTERS]],
    ]);
  });

  it('reads the quiet clusters over several polls on the slow cycle', async () => {
    const [slow, everyMinute] = await Promise.all([replayWith('10m'), replayWith('1m')]);
    const reads = (result: typeof slow) => result.activity.polls.reduce((n, p) => n + p.polled, 0);

    expect(reads(slow)).toBeLessThan(reads(everyMinute) / 2);
  });
});
