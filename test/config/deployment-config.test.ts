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

  it('rejects a duplicate cluster at the second one', () => {
    const config = exampleWith([['clusters', 2], { name: 'prod-euw1' }]);

    expect(problemsOf(config)).toEqual([{ path: '$.clusters[2].name', message: 'duplicate cluster "prod-euw1"' }]);
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
          'rule "node-repair-storm" has no parameter "minReplacements"; it has: replacedShare, minReplaced, stormShare, stormRepairs, notReadyShare, writeP99Seconds, errorRatio',
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

  it('reports every problem of the file at once', () => {
    const config = exampleWith(
      [['clusters', 2], { name: 'dev-euw1' }],
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
