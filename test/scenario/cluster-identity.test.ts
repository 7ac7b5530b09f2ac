import { clusterLabels } from '../../shared/config/cluster-labels.ts';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import { incidentKey, pagerDutyEvent } from '../../shared/delivery/vendor-messages.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { renderMessage } from '../../shared/notify/message-bodies.ts';
import { checkSilenceRequest, type Silence } from '../../shared/pipeline/silence.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import type { Scenario } from '../../shared/scenario/scenario.ts';
import { loadScenario } from '../support/engine-fixtures.ts';

/*
 * A fleet that calls a cluster `main` in every account: two of them, in two accounts of one Region, replayed through
 * the staging-then-prod webhook outages (the first `main` has the staging outage, the second prod's, 13 minutes
 * later), grouped by account as a team that pages each account's owner would.
 */
const FIRST = 'main@111122223333/eu-west-1';
const SECOND = 'main@444455556666/eu-west-1';
const { config, ruleSet } = loadConfig(
  {
    ops: { accountId: '111122223333', region: 'eu-west-1' },
    clusters: [
      { name: 'main', accountId: '111122223333', region: 'eu-west-1' },
      { name: 'main', accountId: '444455556666', region: 'eu-west-1' },
    ],
    grouping: { by: ['account'] },
  },
  'two-mains.json',
);

function twoMains(silences: readonly Silence[] = []): Scenario {
  const shipped = loadScenario('staging-then-prod-webhook-outages');
  const series = (name: string) => shipped.clusters.get(name) ?? {};
  return {
    ...shipped,
    clusters: new Map([
      [FIRST, series('staging-euw1')],
      [SECOND, series('prod-euw1')],
    ]),
    labels: new Map(),
    grouping: undefined,
    silences,
    expect: [],
  };
}

const pages = (notifications: readonly Notification[]) => notifications.filter((n) => n.kind === 'page');

describe('two clusters named main in two accounts', () => {
  it('page separately, under distinct dedup keys, with titles that tell them apart', async () => {
    const { notifications } = await replayScenario(twoMains(), { ruleSet, config });
    const paged = pages(notifications);

    expect(paged.map((n) => [n.clusters, n.where])).toEqual([
      [[FIRST], { account: '111122223333', region: 'eu-west-1' }],
      [[SECOND], { account: '444455556666', region: 'eu-west-1' }],
    ]);
    expect(new Set(paged.map((n) => pagerDutyEvent(n, 'trigger').dedup_key)).size).toBe(2);
    expect(paged.map((n) => n.title)).toEqual([
      expect.stringContaining(`on ${FIRST}`),
      expect.stringContaining(`on ${SECOND}`),
    ]);
  });

  it('carry their display names in the SNS cluster attribute that subscription filter policies match', async () => {
    const { notifications } = await replayScenario(twoMains(), { ruleSet, config });

    expect(pages(notifications).map((n) => renderMessage(n).attributes.cluster?.StringValue)).toEqual([
      JSON.stringify([FIRST]),
      JSON.stringify([SECOND]),
    ]);
  });

  it('keep their incidents apart: every notification about the second is under its own key', async () => {
    const { notifications } = await replayScenario(twoMains(), { ruleSet, config });
    const keys = (cluster: string) =>
      new Set(notifications.filter((n) => n.clusters.includes(cluster)).map(incidentKey));

    expect([...keys(FIRST)].some((key) => keys(SECOND).has(key))).toBe(false);
  });
});

describe('a silence of one main', () => {
  const known = {
    clusters: config.clusters.map((c) => clusterLabels(c, config.ops)),
    rules: ruleSet.rules.map((r) => r.id),
    identities: config.clusters,
  };
  const request = (matcher: string) => ({ matchers: [matcher], for: '2h', reason: 'account migration' });

  it('names it by its display name, and holds back its pages alone', async () => {
    const matchers = checkSilenceRequest(request(`cluster=${SECOND}`), known, Date.now());
    const from = twoMains().start;
    const to = from + 6 * 3_600_000;
    const silence: Silence = { id: 's1', matchers, includePages: true, from, to, reason: 'migration', author: 'me' };

    const { notifications } = await replayScenario(twoMains([silence]), { ruleSet, config });

    expect(pages(notifications).map((n) => n.clusters)).toEqual([[FIRST]]);
  });

  it('refuses the plain name two clusters share, listing the display names to choose from', () => {
    expect(() => checkSilenceRequest(request('cluster=main'), known, Date.now())).toThrow(
      `--match cluster=main: "main" names 2 clusters (in different accounts or Regions): name one of "${FIRST}", "${SECOND}"`,
    );
  });
});
