import { loadConfig, parseConfigText } from '../../shared/config/deployment-config.ts';
import { CONFIG_FILE, customRule, EXAMPLE_TEXT, exampleWith, problemsOf } from '../support/config-fixtures.ts';

const FILE = CONFIG_FILE;

describe('loadConfig', () => {
  it('accepts the shipped example configuration', () => {
    const { config } = parseConfigText(EXAMPLE_TEXT, 'config/sentinel.example.json');

    expect(config.clusters.map((c) => c.name)).toEqual(['prod-euw1', 'dev-euw1']);
  });

  it('fills in defaults for a configuration that names only a cluster', () => {
    const { config } = loadConfig({ clusters: [{ name: 'dev-a' }] }, FILE);

    expect([
      config.notifications.renotify,
      config.poll.ingestionLag,
      config.digest.timeZone,
      config.clusters[0]?.source.profile,
    ]).toEqual(['4h', '2m', 'UTC', 'eks']);
  });

  it('groups clusters with no wait, a five-minute interval and a 30-minute join window unless told otherwise', () => {
    const { config } = loadConfig({ clusters: [{ name: 'dev-a' }] }, FILE);

    expect(config.grouping).toEqual({ wait: '0m', interval: '5m', joinWithin: '30m', by: [] });
  });

  it('rejects a grouping interval shorter than the one-minute step, at its path', () => {
    const problems = problemsOf({ clusters: [{ name: 'dev-a' }], grouping: { interval: '30s' } });

    expect([...new Set(problems.map((p) => p.path))]).toEqual(['$.grouping.interval']);
  });

  it('rejects a custom rule whose maintenance condition uses a parameter it does not declare', () => {
    const maintenance = { notifyWhen: { kind: 'threshold', of: 'apiserver.5xx', op: '>=', value: '$tooMany' } };
    const problems = problemsOf({ clusters: [{ name: 'dev-a' }], rules: { custom: [customRule({ maintenance })] } });

    expect(problems).toEqual([
      { path: '$.rules.custom[0].maintenance.notifyWhen', message: 'uses $tooMany, which is not declared in "params"' },
    ]);
  });

  it('adds custom rules to the default rules', () => {
    const { ruleSet } = loadConfig({ clusters: [{ name: 'dev-a' }], rules: { custom: [customRule()] } }, FILE);

    expect([ruleSet.get('etcd-slow')?.severity, ruleSet.get('webhook-blackhole') !== undefined]).toEqual([
      'ticket',
      true,
    ]);
  });

  it('rejects a custom rule whose id a default rule already has, at its path', () => {
    const problems = problemsOf({
      clusters: [{ name: 'dev-a' }],
      rules: { custom: [customRule({ id: 'node-churn' })] },
    });

    expect(problems).toEqual([
      { path: '$.rules.custom[0].id', message: 'duplicate rule id "node-churn": ids must be unique' },
    ]);
  });

  it('rejects a cluster listed twice (same account, Region and name) at the second one, naming both entries', () => {
    const config = exampleWith([['clusters', 2], { name: 'prod-euw1' }]);

    expect(problemsOf(config)).toEqual([
      {
        path: '$.clusters[2].name',
        message:
          'duplicate cluster "prod-euw1": clusters[0] and clusters[2] name the same account (111122223333), Region (eu-west-1) and name; remove one, or fix its accountId or region',
      },
    ]);
  });

  it('accepts two clusters of one name in two accounts, each with a display name that tells where it is', () => {
    const { config } = loadConfig(
      exampleWith(
        [['clusters', 2], { name: 'dev-euw1' }],
        [['maintenance', 0, 'clusters'], ['dev-euw1@222233334444/eu-west-1']],
      ),
      FILE,
    );

    expect(config.clusters.map((c) => c.displayName)).toEqual([
      'prod-euw1',
      'dev-euw1@222233334444/eu-west-1',
      'dev-euw1@111122223333/eu-west-1',
    ]);
  });

  it('keeps a display name the configuration sets, and resolves an EKS name that only one cluster has to it', () => {
    const { config } = loadConfig(
      exampleWith(
        [['clusters', 0, 'displayName'], 'payments-prod'],
        [['subscriptions', 'notice', 0, 'clusters'], ['prod-euw1']],
      ),
      FILE,
    );

    expect([config.clusters[0]?.displayName, config.subscriptions.notice[0]?.clusters]).toEqual([
      'payments-prod',
      ['payments-prod'],
    ]);
  });

  it('refuses a name two clusters share where a cluster is named, listing the display names to choose from', () => {
    const config = exampleWith([['clusters', 2], { name: 'dev-euw1' }]);

    expect(problemsOf(config)).toEqual([
      {
        path: '$.maintenance[0].clusters[0]',
        message:
          '"dev-euw1" names 2 clusters (in different accounts or Regions): name one of "dev-euw1@222233334444/eu-west-1", "dev-euw1@111122223333/eu-west-1"',
      },
    ]);
  });

  it('asks for a display name when a shared name has no account or Region to derive one from', () => {
    const config = { clusters: [{ name: 'main' }, { name: 'main', accountId: '222233334444', region: 'eu-west-1' }] };

    expect(problemsOf(config)).toEqual([
      {
        path: '$.clusters[0].displayName',
        message:
          '"main" is also the name of clusters[1]: give this cluster a "displayName", or name its "accountId" and "region" (or ops.accountId and ops.region) so that one is derived',
      },
    ]);
  });

  it('rejects two clusters shown under one display name', () => {
    const config = exampleWith([['clusters', 1, 'displayName'], 'prod-euw1']);

    expect(problemsOf(config)).toEqual([
      {
        path: '$.clusters[1].displayName',
        message: 'clusters[0] and clusters[1] are both shown as "prod-euw1": give one of them another "displayName"',
      },
    ]);
  });

  it('rejects a configuration without clusters', () => {
    expect(problemsOf({ clusters: [] })).toEqual([
      { path: '$.clusters', message: 'expected at least one cluster to watch' },
    ]);
  });

  it('rejects a maintenance window on an unknown cluster', () => {
    const config = exampleWith([
      ['maintenance', 0, 'clusters'],
      ['dev-euw1', 'dev-use2'],
    ]);

    expect(problemsOf(config)).toEqual([
      { path: '$.maintenance[0].clusters[1]', message: 'unknown cluster "dev-use2"' },
    ]);
  });

  it('rejects a maintenance window that ends before it starts', () => {
    const config = exampleWith([['maintenance', 0, 'to'], '2026-12-01T21:00:00Z']);

    expect(problemsOf(config)).toEqual([{ path: '$.maintenance[0].to', message: 'must be later than "from"' }]);
  });

  it('rejects a subscription filtered on an unknown cluster', () => {
    const config = exampleWith([['subscriptions', 'notice', 0, 'clusters'], ['prod-euw2']]);

    expect(problemsOf(config)).toEqual([
      {
        path: '$.subscriptions.notice[0].clusters[0]',
        message: 'unknown cluster "prod-euw2": did you mean "prod-euw1"?',
      },
    ]);
  });

  it('rejects an https subscriber URL that carries a PagerDuty integration key and says to use endpointSecret', () => {
    const config = exampleWith([
      ['subscriptions', 'paging', 0, 'subscribers', 0],
      {
        protocol: 'https',
        endpoint: 'https://events.pagerduty.com/integration/0123456789abcdef0123456789abcdef/enqueue',
      },
    ]);

    expect(problemsOf(config)).toEqual([
      {
        path: '$.subscriptions.paging[0].subscribers[0].endpoint',
        message: expect.stringContaining('use "endpointSecret" instead'),
      },
    ]);
  });

  it('rejects a Slack webhook URL as a secret too', () => {
    const config = exampleWith([
      ['subscriptions', 'notice', 0, 'subscribers', 0],
      {
        protocol: 'https',
        endpoint: 'https://hooks.slack.com/services/T000/B000/XXXXXXXX',
      },
    ]);

    expect(problemsOf(config).map((p) => p.path)).toEqual(['$.subscriptions.notice[0].subscribers[0].endpoint']);
  });

  it('accepts an https subscriber URL without a secret', () => {
    const config = exampleWith([
      ['subscriptions', 'notice', 0, 'subscribers', 0],
      { protocol: 'https', endpoint: 'https://alerts.example.com/hook' },
    ]);

    expect(loadConfig(config, FILE).config.subscriptions.notice[0]?.subscribers[0]).toEqual({
      protocol: 'https',
      endpoint: 'https://alerts.example.com/hook',
    });
  });

  it('rejects an https subscriber with both endpoint and endpointSecret', () => {
    const config = exampleWith([
      ['subscriptions', 'paging', 0, 'subscribers', 0],
      {
        protocol: 'https',
        endpoint: 'https://alerts.example.com/hook',
        endpointSecret: { secretName: 'sentinel/chat-hook' },
      },
    ]);

    expect(problemsOf(config)).toEqual([
      {
        path: '$.subscriptions.paging[0].subscribers[0]',
        message: 'an https subscriber needs exactly one of "endpoint" or "endpointSecret"',
      },
    ]);
  });

  it('rejects a plain http subscriber URL', () => {
    const config = exampleWith([
      ['subscriptions', 'notice', 0, 'subscribers', 0],
      { protocol: 'https', endpoint: 'http://alerts.example.com/hook' },
    ]);

    expect(problemsOf(config)).toEqual([
      { path: '$.subscriptions.notice[0].subscribers[0].endpoint', message: 'expected an https:// URL' },
    ]);
  });

  it('rejects an invalid time zone for the digest', () => {
    const config = exampleWith([['digest', 'timeZone'], 'Europe/Atlantis']);

    expect(problemsOf(config)).toEqual([
      { path: '$.digest.timeZone', message: 'expected an IANA time zone like Europe/Berlin' },
    ]);
  });

  it('accepts a time zone alias for the digest, such as US/Pacific or Etc/UTC', () => {
    const zones = ['US/Pacific', 'Etc/UTC'].map(
      (zone) => loadConfig(exampleWith([['digest', 'timeZone'], zone]), FILE).config.digest.timeZone,
    );

    expect(zones).toEqual(['US/Pacific', 'Etc/UTC']);
  });

  it('rejects an invalid email subscriber', () => {
    const config = exampleWith([['subscriptions', 'paging', 0, 'subscribers', 1, 'endpoint'], 'oncall.example.com']);

    expect(problemsOf(config)).toEqual([
      { path: '$.subscriptions.paging[0].subscribers[1].endpoint', message: 'expected an email address' },
    ]);
  });

  it('rejects an invalid digest recipient', () => {
    const config = exampleWith([['digest', 'recipients'], ['platform-leads']]);

    expect(problemsOf(config)).toEqual([{ path: '$.digest.recipients[0]', message: 'expected an email address' }]);
  });

  it('rejects an SMS number that is not in E.164 form', () => {
    const config = exampleWith([
      ['subscriptions', 'paging', 0, 'subscribers', 1],
      { protocol: 'sms', endpoint: '0151 1234567' },
    ]);

    expect(problemsOf(config).map((p) => p.path)).toEqual(['$.subscriptions.paging[0].subscribers[1].endpoint']);
  });

  it('rejects a fleet override of an unknown rule', () => {
    const config = exampleWith([['rules', 'overrides', 'webhook-latency'], { enabled: false }]);

    expect(problemsOf(config)).toEqual([
      { path: '$.rules.overrides["webhook-latency"]', message: 'unknown rule "webhook-latency"' },
    ]);
  });

  it('rejects a cluster override of an unknown parameter, listing the known ones', () => {
    const config = exampleWith([['clusters', 0, 'overrides', 'node-repair-storm', 'params', 'minReplacements'], 4]);

    expect(problemsOf(config)).toEqual([
      {
        path: '$.clusters[0].overrides["node-repair-storm"].params.minReplacements',
        message:
          'rule "node-repair-storm" has no parameter "minReplacements"; it has: replacedShare, minReplaced, stormShare, stormRepairs, loopMinutes, loopRise, loopRiseRatio, loopRiseRatioAlone, loopNotReadyShare, loopNotReadyRise, loopReadyPerRepair, loopMinNotReady, loopRepairsPerNotReady, repairBrakeShare, notReadyShare, writeP99Seconds, errorRatio',
      },
    ]);
  });

  it('accepts an override of a custom rule', () => {
    const config = {
      clusters: [{ name: 'dev-a', overrides: { 'etcd-slow': { enabled: false } } }],
      rules: { custom: [customRule()] },
    };

    expect(loadConfig(config, FILE).config.clusters[0]?.overrides).toEqual({ 'etcd-slow': { enabled: false } });
  });

  it('rejects an unknown top-level key', () => {
    expect(problemsOf(exampleWith([['pagers'], []]))).toEqual([
      { path: '$', message: expect.stringContaining('"pagers"') },
    ]);
  });

  it('rejects an account id that is not 12 digits', () => {
    const config = exampleWith([['clusters', 1, 'accountId'], '2222-3333-4444']);

    expect(problemsOf(config)).toEqual([
      { path: '$.clusters[1].accountId', message: 'expected a 12-digit AWS account id' },
    ]);
  });

  it("rejects a cluster's Region that does not exist, naming the nearest one, and accepts an opt-in Region", () => {
    const misspelt = exampleWith([['clusters', 1, 'region'], 'eu-wset-1']);
    const optIn = exampleWith([['clusters', 1, 'region'], 'mx-central-1']);

    expect(problemsOf(misspelt)).toEqual([
      { path: '$.clusters[1].region', message: 'not an AWS Region: did you mean "eu-west-1"?' },
    ]);
    expect(loadConfig(optIn, FILE).config.clusters[1]?.region).toBe('mx-central-1');
  });

  it("rejects the ops stack's Region when it is no Region", () => {
    const config = exampleWith([['ops', 'region'], 'xx-nowhere-9']);

    expect(problemsOf(config)).toEqual([
      { path: '$.ops.region', message: 'not an AWS Region: expected a Region code like eu-west-1' },
    ]);
  });

  it('reports every problem of the file at once', () => {
    const config = exampleWith(
      [['clusters', 2], { name: 'prod-euw1' }],
      [['subscriptions', 'notice', 0, 'clusters'], ['ghost']],
    );

    expect(problemsOf(config).map((p) => p.path)).toEqual([
      '$.clusters[2].name',
      '$.subscriptions.notice[0].clusters[0]',
    ]);
  });
});

describe('parseConfigText', () => {
  it('reports malformed JSON as a problem of the file', () => {
    expect(() => parseConfigText('{ "clusters": ', FILE)).toThrow(
      expect.objectContaining({ file: FILE, problems: [expect.objectContaining({ path: '$' })] }),
    );
  });

  it.each([
    [{ notifications: { renotify: '0s' } }, '$.notifications.renotify'],
    [{ poll: { every: '90s' } }, '$.poll.every'],
    [{ poll: { ingestionLag: '90s' } }, '$.poll.ingestionLag'],
  ])('rejects durations that polls on whole minutes cannot keep: %j', (fields, path) => {
    expect(() => loadConfig({ clusters: [{ name: 'dev-a' }], ...fields }, 'c.json')).toThrow(path);
  });
});
