import { subscribedClusters } from '../../shared/config/cluster-labels.ts';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import { integrationsFor, pagingIntegrations } from '../../shared/delivery/paging-integrations.ts';
import { CONFIG_FILE, problemsOf } from '../support/config-fixtures.ts';
import { notificationAt } from '../support/engine-fixtures.ts';

/** Four clusters in three accounts, as a platform team runs them: two teams, staging and prod. */
const CLUSTERS = [
  { name: 'pay-prod', accountId: '111111111111', labels: { environment: 'prod', team: 'payments' } },
  { name: 'pay-staging', accountId: '222222222222', labels: { environment: 'staging', team: 'payments' } },
  { name: 'search-prod', accountId: '111111111111', labels: { environment: 'prod', team: 'search' } },
  { name: 'search-staging', accountId: '333333333333', labels: { environment: 'staging', team: 'search' } },
];
const OPS = { accountId: '111111111111', region: 'eu-west-1' };
const pagerDuty = (secretName: string) => ({ protocol: 'pagerduty', routingKeySecret: { secretName } });

describe('cluster labels in the configuration', () => {
  it('accepts grouping by a label the clusters carry, and by account', () => {
    const { config } = loadConfig(
      { ops: OPS, clusters: CLUSTERS, grouping: { by: ['environment', 'account'] } },
      CONFIG_FILE,
    );

    expect(config.grouping.by).toEqual(['environment', 'account']);
  });

  it('refuses grouping by a label no cluster carries, suggesting the nearest', () => {
    expect(problemsOf({ ops: OPS, clusters: CLUSTERS, grouping: { by: ['enviroment'] } })).toEqual([
      {
        path: '$.grouping.by[0]',
        message:
          'no cluster has the label "enviroment": did you mean "environment"? (a cluster\'s "labels", or account, region)',
      },
    ]);
  });

  it('refuses a label named as one the pipeline gives every cluster', () => {
    const problems = problemsOf({ clusters: [{ name: 'dev-a', labels: { region: 'eu' } }] });

    expect(problems.map((p) => p.path)).toEqual(['$.clusters[0].labels.region']);
  });

  it('refuses a subscription label value no cluster has, suggesting the nearest', () => {
    const subscriptions = { paging: [{ labels: { team: 'payment' }, subscribers: [pagerDuty('pd/payments')] }] };

    expect(problemsOf({ ops: OPS, clusters: CLUSTERS, subscriptions })).toEqual([
      {
        path: '$.subscriptions.paging[0].labels.team',
        message: 'no cluster has team="payment": did you mean "payments"?',
      },
    ]);
  });

  it('refuses a subscription whose clusters and labels select nothing together', () => {
    const subscriptions = {
      notice: [
        {
          clusters: ['search-prod'],
          labels: { team: 'payments' },
          subscribers: [{ protocol: 'email', endpoint: 'a@example.com' }],
        },
      ],
    };

    expect(problemsOf({ ops: OPS, clusters: CLUSTERS, subscriptions })).toEqual([
      {
        path: '$.subscriptions.notice[0].labels',
        message: 'no configured cluster matches both "clusters" and "labels"',
      },
    ]);
  });
});

describe('routes by label', () => {
  const { config } = loadConfig(
    {
      ops: OPS,
      clusters: CLUSTERS,
      subscriptions: {
        paging: [
          { labels: { team: 'payments' }, subscribers: [pagerDuty('pd/payments')] },
          { labels: { team: 'search', environment: ['prod'] }, subscribers: [pagerDuty('pd/search')] },
          { subscribers: [{ protocol: 'email', endpoint: 'oncall@example.com' }] },
        ],
      },
    },
    CONFIG_FILE,
  );

  it('resolves a subscription label matcher to the clusters it matches', () => {
    expect(config.subscriptions.paging.map((s) => subscribedClusters(s, config))).toEqual([
      ['pay-prod', 'pay-staging'],
      ['search-prod'],
      undefined,
    ]);
  });

  it("pages team A's PagerDuty service about team A's clusters only", () => {
    const integrations = pagingIntegrations(config);
    const heard = (cluster: string) =>
      integrationsFor(
        notificationAt({ at: '2026-01-01T00:00:00Z', kind: 'page', rule: 'webhook-blackhole', clusters: [cluster] }),
        integrations,
      ).map((i) => i.id);

    expect([heard('pay-staging'), heard('search-prod'), heard('search-staging')]).toEqual([
      ['pagerduty:pd/payments'],
      ['pagerduty:pd/search'],
      [],
    ]);
  });
});
