import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { checkDeployable, configVerdict } from '../../shared/config/config-verdict.ts';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import { InputError } from '../../shared/errors.ts';
import { CONFIG_FILE, KINDED, ONCALL, TEAM, warningFreeConfig } from '../support/config-fixtures.ts';
import { repoPath } from '../support/engine-fixtures.ts';

/** A configuration that deploys without a warning, with the given sections replaced, as the deployment loads it. */
function configWith(fields: Record<string, unknown>) {
  return loadConfig(warningFreeConfig(fields), CONFIG_FILE).config;
}

const pathsOf = (problems: readonly { path: string }[]) => problems.map((p) => p.path);

describe('configVerdict', () => {
  it('finds nothing to say about the shipped example configuration in its own region', () => {
    const example = JSON.parse(readFileSync(repoPath('config/sentinel.example.json'), 'utf8'));

    const verdict = configVerdict(loadConfig(example, 'config/sentinel.example.json').config);

    expect(verdict).toEqual({ errors: [], warnings: [] });
  });

  it('refuses a PagerDuty or Opsgenie subscriber on the notice topic, where tickets would page', () => {
    const pagerduty = { protocol: 'pagerduty', routingKeySecret: { secretName: 'sentinel/pd' } };
    const config = configWith({
      subscriptions: { paging: [{ subscribers: [ONCALL, pagerduty] }], notice: [{ subscribers: [TEAM, pagerduty] }] },
    });

    expect(configVerdict(config).errors).toEqual([
      {
        path: '$.subscriptions.notice[0].subscribers[1].protocol',
        message: expect.stringContaining('a pagerduty subscriber belongs under subscriptions.paging'),
      },
    ]);
  });

  it('refuses the same PagerDuty routing key twice on the paging topic', () => {
    const pagerduty = { protocol: 'pagerduty', routingKeySecret: { secretName: 'sentinel/pd', jsonField: 'key' } };
    const config = configWith({
      subscriptions: { paging: [{ subscribers: [ONCALL, pagerduty] }, { clusters: ['a'], subscribers: [pagerduty] }] },
    });

    expect(pathsOf(configVerdict(config).errors)).toEqual(['$.subscriptions.paging[1].subscribers[0]']);
  });

  it('refuses a subscriber subscribed twice to one topic, pointing at the second', () => {
    const config = configWith({
      subscriptions: {
        paging: [
          { clusters: ['a'], subscribers: [ONCALL] },
          { clusters: ['b'], subscribers: [ONCALL] },
        ],
        notice: [{ subscribers: [TEAM] }],
      },
    });

    expect(configVerdict(config).errors).toEqual([
      {
        path: '$.subscriptions.paging[1].subscribers[0]',
        message:
          'this subscriber is already subscribed to the paging topic at $.subscriptions.paging[0].subscribers[0]; SNS allows one subscription per endpoint, so merge the two "clusters" lists',
      },
    ]);
  });

  it('refuses one Secrets Manager endpoint named twice on a topic', () => {
    const secret = { protocol: 'https', endpointSecret: { secretName: 'sentinel/pagerduty' } };
    const config = configWith({
      subscriptions: { paging: [{ subscribers: [secret, ONCALL, secret] }], notice: [{ subscribers: [TEAM] }] },
    });

    expect(pathsOf(configVerdict(config).errors)).toEqual(['$.subscriptions.paging[0].subscribers[2]']);
  });

  it('lets one subscriber hear both the paging and the notice topic', () => {
    const config = configWith({
      subscriptions: { paging: [{ subscribers: [ONCALL] }], notice: [{ subscribers: [ONCALL] }] },
    });

    expect(configVerdict(config).errors).toEqual([]);
  });

  it('refuses a cluster filter longer than SNS allows', () => {
    const names = Array.from({ length: 150 }, (_, i) => `cluster-${i}`);
    const config = configWith({
      clusters: names.map((name) => ({ name, source: KINDED })),
      subscriptions: { paging: [{ subscribers: [ONCALL] }, { clusters: names, subscribers: [TEAM] }] },
    });

    expect(configVerdict(config).errors).toEqual([
      {
        path: '$.subscriptions.paging[1].clusters',
        message: 'an SNS filter policy can name at most 149 clusters; split the subscription or drop "clusters"',
      },
    ]);
  });

  it('refuses a cluster filter of an SMS paging subscriber past 49, since its kind filter multiplies the values by three', () => {
    const names = Array.from({ length: 50 }, (_, i) => `cluster-${i}`);
    const phone = { protocol: 'sms', endpoint: '+4915187654321' };
    const config = configWith({
      clusters: names.map((name) => ({ name, source: KINDED })),
      subscriptions: { paging: [{ subscribers: [ONCALL] }, { clusters: names, subscribers: [phone] }] },
    });

    expect(configVerdict(config).errors).toEqual([
      {
        path: '$.subscriptions.paging[1].clusters',
        message:
          'an SNS filter policy can name at most 49 clusters beside the SMS filter on kind; split the subscription or drop "clusters"',
      },
    ]);
  });

  it('refuses a digest recipient listed twice', () => {
    const config = configWith({ digest: { recipients: ['lead@example.com', 'lead@example.com'] } });

    expect(configVerdict(config).errors).toEqual([
      {
        path: '$.digest.recipients[1]',
        message: '"lead@example.com" is already a recipient at $.digest.recipients[0]',
      },
    ]);
  });

  it.each([
    [
      'no one would be paged',
      { subscriptions: { notice: [{ subscribers: [TEAM] }] } },
      'sentinel:noPagingSubscriber',
      '$.subscriptions.paging',
      'no paging subscriber: pages and the pipeline alarms reach no one. Add a paging subscription without "clusters".',
    ],
    [
      'every paging subscription is limited to some clusters',
      { subscriptions: { paging: [{ clusters: ['a'], subscribers: [ONCALL] }], notice: [{ subscribers: [TEAM] }] } },
      'sentinel:selfMonitoringUnheard',
      '$.subscriptions.paging',
      'no one receives the pipeline alarms: every paging subscription is limited to some clusters (the alarms carry no cluster attribute) or says "pipelineAlarms": false, and none has a PagerDuty, Opsgenie or Jira Service Management subscriber that takes them. Add a paging subscription without "clusters".',
    ],
    [
      'nothing reaches anyone (once, not per topic)',
      { subscriptions: {}, digest: {} },
      'sentinel:noSubscribers',
      '$.subscriptions',
      'no subscribers and no digest recipients: no page, ticket or digest reaches anyone. Add a paging subscription without "clusters".',
    ],
  ])('warns when %s', (_when, fields, code, path, message) => {
    const config = configWith(fields);

    expect(configVerdict(config).warnings).toEqual([{ code, path, message }]);
  });

  describe("who hears the pipeline's own alarms", () => {
    const email = { protocol: 'email', endpoint: 'oncall@example.com' };
    const pagerduty = { protocol: 'pagerduty', routingKeySecret: { secretName: 'sentinel/pagerduty-a' } };
    const codes = (paging: unknown[]) =>
      configVerdict(configWith({ subscriptions: { paging, notice: [{ subscribers: [TEAM] }] } })).warnings.map(
        (w) => w.code,
      );

    it('warns when only email would hear them', () => {
      expect(codes([{ subscribers: [email] }])).toEqual(['sentinel:selfMonitoringEmailOnly']);
    });

    it("counts a PagerDuty subscriber as hearing them, even one limited to a team's clusters", () => {
      expect(codes([{ subscribers: [email] }, { clusters: ['a'], subscribers: [pagerduty] }])).toEqual([]);
    });

    it('warns again when that subscriber says "pipelineAlarms": false', () => {
      const quiet = { clusters: ['a'], subscribers: [pagerduty], pipelineAlarms: false };

      expect(codes([{ subscribers: [email] }, quiet])).toEqual(['sentinel:selfMonitoringEmailOnly']);
      expect(codes([quiet])).toEqual(['sentinel:selfMonitoringUnheard']);
    });
  });

  it('warns once, at the first, when clusters do not say how their nodes run, naming three and counting the rest', () => {
    const clusters = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name }));
    const kinded = { name: 'k', source: KINDED };

    expect(configVerdict(configWith({ clusters: [kinded, ...clusters] })).warnings).toEqual([
      {
        code: 'sentinel:clusterKindUnknown',
        path: '$.clusters[1].source.nodes',
        message:
          'a, b, c and 2 more do not say how their nodes run, so their pages carry the hints for every kind of cluster. Set source.nodes (managed-node-groups, self-managed-groups, karpenter, auto-mode, fargate, or a list); sentinel doctor says what each cluster runs.',
      },
    ]);
  });

  it('warns when tickets or the digest go to no one', () => {
    const config = configWith({ subscriptions: { paging: [{ subscribers: [ONCALL] }] }, digest: {} });

    expect(configVerdict(config).warnings.map((w) => [w.path, w.message])).toEqual([
      ['$.subscriptions.notice', 'no notice subscriber: tickets reach no one.'],
      ['$.digest.recipients', 'no digest recipient: the weekly digest is sent to no one.'],
    ]);
  });

  it('finds nothing to say about clusters in several Regions: each has its tripwire in its own', () => {
    const config = configWith({
      ops: { accountId: '111122223333', region: 'eu-west-1' },
      clusters: [
        { name: 'a', source: KINDED },
        { name: 'b', source: KINDED, region: 'us-east-1' },
        { name: 'c', source: KINDED, accountId: '222233334444', region: 'us-east-1' },
        { name: 'd', source: KINDED, accountId: '222233334444' },
      ],
    });

    expect(configVerdict(config).warnings).toEqual([]);
  });

  it('warns about an existing sink that no cluster of another account needs', () => {
    const config = configWith({
      ops: {
        accountId: '111122223333',
        region: 'eu-west-1',
        existingSinks: ['arn:aws:oam:us-east-1:111122223333:sink/abc'],
      },
      clusters: [{ name: 'a', source: KINDED, accountId: '222233334444' }],
    });

    expect(configVerdict(config).warnings.map((w) => [w.code, w.path])).toEqual([
      ['sentinel:unusedSink', '$.ops.existingSinks[0]'],
    ]);
  });
});

describe('configVerdict on the ops account', () => {
  it('refuses clusters of other accounts when the file names no ops account and Region', () => {
    const config = configWith({ clusters: [{ name: 'd', source: KINDED, accountId: '222233334444' }] });

    expect(configVerdict(config).errors).toEqual([
      {
        path: '$.ops',
        message:
          'clusters in other accounts (d in 222233334444) need the ops account and Region named: add "ops": { "accountId": "OPS_ACCOUNT_ID", "region": "REGION" }. The workload accounts run cdk with their own credentials, so the stacks cannot learn the ops account from them.',
      },
    ]);
  });

  it('accepts a cluster that names the ops account itself without "ops"', () => {
    const config = configWith({
      ops: { accountId: '111122223333' },
      clusters: [{ name: 'a', source: KINDED, accountId: '111122223333' }],
    });

    expect(configVerdict(config).errors).toEqual([]);
  });

  it('refuses an existing sink of another account, and two sinks in one Region', () => {
    const config = configWith({
      ops: {
        accountId: '111122223333',
        region: 'eu-west-1',
        existingSinks: ['arn:aws:oam:eu-west-1:999988887777:sink/abc', 'arn:aws:oam:eu-west-1:111122223333:sink/def'],
      },
      clusters: [{ name: 'a', source: KINDED, accountId: '222233334444' }],
    });

    expect(configVerdict(config).errors).toEqual([
      {
        path: '$.ops.existingSinks[0]',
        message:
          'this sink is in account 999988887777, not in the ops account 111122223333: the poller reads linked metrics through a sink of its own account',
      },
      {
        path: '$.ops.existingSinks[1]',
        message:
          '$.ops.existingSinks[0] already names the sink of eu-west-1: an account has at most one sink per Region',
      },
    ]);
  });
});

describe('checkDeployable', () => {
  it('throws an InputError naming the file and every error', () => {
    const config = configWith({ digest: { recipients: ['lead@example.com', 'lead@example.com'] } });

    expect(() => checkDeployable(config, CONFIG_FILE)).toThrow(
      new InputError(CONFIG_FILE, [
        {
          path: '$.digest.recipients[1]',
          message: '"lead@example.com" is already a recipient at $.digest.recipients[0]',
        },
      ]),
    );
  });

  it('returns the warnings of a configuration that deploys', () => {
    const config = configWith({ digest: {} });

    expect(pathsOf(checkDeployable(config, CONFIG_FILE))).toEqual(['$.digest.recipients']);
  });
});
