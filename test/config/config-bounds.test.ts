import { parseConfigText } from '../../shared/config/deployment-config.ts';
import { InputError } from '../../shared/errors.ts';
import { CONFIG_FILE, customRule, EXAMPLE_TEXT, exampleWith, problemsOf } from '../support/config-fixtures.ts';

/** The message at one JSON path, for values that must be refused there. */
function messageAt(value: unknown, path: string): string {
  const problems = problemsOf(value);
  const found = problems.find((p) => p.path === path);
  if (!found) throw new Error(`no problem at ${path}; got ${JSON.stringify(problems)}`);
  return found.message;
}

const deepCondition = (depth: number): unknown => {
  let when: unknown = { kind: 'threshold', of: 'apiserver.write.p99', op: '>=', value: 2 };
  for (let level = 0; level < depth; level++) when = { kind: 'allOf', conditions: [when] };
  return when;
};

describe('bounds on what a configuration may set', () => {
  it.each([
    ['poll.every', ['poll', 'every'], '10000d', '$.poll.every', 'expected at most 1h, got 10000d'],
    ['poll.ingestionLag', ['poll', 'ingestionLag'], '10000d', '$.poll.ingestionLag', 'expected at most 15m'],
    ['notifications.renotify', ['notifications', 'renotify'], '100000d', '$.notifications.renotify', 'at most 7d'],
    [
      'a tripwire above the request timeout',
      ['poll', 'tripwire'],
      { writeP99Seconds: 600 },
      '$.poll.tripwire.writeP99Seconds',
      'at most 60',
    ],
  ])('refuses %s out of range', (_name, path, value, where, message) => {
    expect(messageAt(exampleWith([path, value]), where)).toContain(message);
  });

  it('refuses a ratio written as a percentage, and says so', () => {
    const config = exampleWith([['rules', 'overrides'], { 'control-plane-degraded': { params: { errorRatio: 5 } } }]);

    expect(messageAt(config, '$.rules.overrides["control-plane-degraded"].params.errorRatio')).toBe(
      'expected a share between 0 and 1 (0.05 for 5 %), not a percentage, got 5',
    );
  });

  it('refuses a negative threshold in an override and in a custom rule', () => {
    const override = exampleWith([
      ['clusters', 0, 'overrides'],
      { 'webhook-blackhole': { params: { p99Seconds: -1 } } },
    ]);
    const custom = exampleWith([
      ['rules', 'custom'],
      [customRule({ when: { kind: 'threshold', of: 'apiserver.5xx', op: '>', value: -1 } })],
    ]);

    expect(problemsOf(override).map((p) => p.path)).toContain(
      '$.clusters[0].overrides["webhook-blackhole"].params.p99Seconds',
    );
    expect(messageAt(custom, '$.rules.custom[0].when.value')).toContain('no signal is negative');
  });

  it('refuses a sustained condition over more samples than CloudWatch keeps', () => {
    const config = exampleWith([
      ['rules', 'custom'],
      [customRule({ when: { kind: 'sustained', of: 'apiserver.5xx', op: '>', value: 1, m: 1, n: 100_000_000 } })],
    ]);

    expect(messageAt(config, '$.rules.custom[0].when.n')).toContain('expected at most 21600 samples');
  });

  it('refuses a window longer than the 15 days of one-minute data', () => {
    const when = { kind: 'window', of: 'apiserver.5xx', aggregate: 'sum', window: '3650d', op: '>', value: 1 };
    const config = exampleWith([['rules', 'custom'], [customRule({ when })]]);

    expect(messageAt(config, '$.rules.custom[0].when.window')).toBe('expected at most 15d, got 3650d');
  });

  it('refuses a custom rule whose reads would cost too much, with the figure', () => {
    const when = { kind: 'window', of: 'apiserver.5xx', aggregate: 'sum', window: '7d', op: '>', value: 1 };
    const config = exampleWith([['rules', 'custom'], [customRule({ when })]]);

    expect(messageAt(config, '$.rules.custom[0].when')).toMatch(
      /^reads 10080 one-minute samples, so every cluster-read would ask CloudWatch for \d+ datapoints \(\d+ signals × 10080\); the limit is 25000/,
    );
  });

  it('accepts the default rules, whose reads are within the cost limit', () => {
    expect(() => parseConfigText(EXAMPLE_TEXT, CONFIG_FILE)).not.toThrow();
  });

  it('refuses a condition nested a thousand deep with a named error, not a stack overflow', () => {
    const config = exampleWith([['rules', 'custom'], [customRule({ when: deepCondition(1000) })]]);

    expect(problemsOf(config)).toEqual([{ path: '$', message: 'nests deeper than 32 levels' }]);
  });
});

describe('strings that reach the CloudFormation template', () => {
  it.each([
    ['a CloudFormation dynamic reference', 'x{{resolve:ssm:/x/y}}'],
    ['a space', 'prod euw1'],
    ['an emoji', 'prod-🔥'],
    ['a leading hyphen', '-prod'],
    ['101 characters', `a${'b'.repeat(100)}`],
  ])('refuses a cluster name with %s', (_what, name) => {
    expect(problemsOf(exampleWith([['clusters', 0, 'name'], name])).map((p) => p.path)).toContain('$.clusters[0].name');
  });

  it('refuses a CDK token or a dynamic reference in any string, naming where it stands', () => {
    const config = exampleWith(
      [
        ['maintenance'],
        [
          {
            from: '2026-01-01T00:00:00Z',
            to: '2026-01-02T00:00:00Z',
            reason: ['$', '{Token[AWS.URLSuffix.1]}'].join(''),
          },
        ],
      ],
      [['clusters', 0, 'source', 'nodeGroups'], ['{{resolve:secretsmanager:prod}}']],
    );

    expect(
      problemsOf(config)
        .map((p) => p.path)
        .sort(),
    ).toEqual(['$.clusters[0].source.nodeGroups[0]', '$.maintenance[0].reason']);
  });
});

describe('credentials in subscriber URLs', () => {
  const SUBSCRIBER = ['subscriptions', 'paging', 0, 'subscribers', 0] as const;
  const ENDPOINT_PATH = '$.subscriptions.paging[0].subscribers[0].endpoint';

  it.each([
    ['a PagerDuty EU integration key', 'https://events.eu.pagerduty.com/integration/0123456789abcdef/enqueue'],
    ['a PagerDuty US integration key', 'https://events.pagerduty.com/integration/0123456789abcdef/enqueue'],
    ['user info', 'https://user:pass@hooks.example.com/notify'],
    ['a token parameter', 'https://hooks.example.com/notify?token=abc'],
    ['an api_key parameter', 'https://hooks.example.com/notify?team=a&api_key=abc'],
    ['a signature parameter', 'https://hooks.example.com/notify?X-Amz-Signature=abc'],
    ['a Slack webhook', 'https://hooks.slack.com/services/T000/B000/XXXX'],
  ])('refuses %s and points at endpointSecret', (_what, endpoint) => {
    const config = exampleWith([[...SUBSCRIBER], { protocol: 'https', endpoint }]);

    expect(messageAt(config, ENDPOINT_PATH)).toContain('use "endpointSecret" instead');
  });

  it('accepts a plain https endpoint', () => {
    const config = exampleWith([
      [...SUBSCRIBER],
      { protocol: 'https', endpoint: 'https://hooks.example.com/notify?team=a' },
    ]);

    expect(() => problemsOf(config)).toThrow('the configuration loaded without an error');
  });
});

describe('how a configuration file is read', () => {
  it('accepts a UTF-8 byte order mark', () => {
    expect(() => parseConfigText(`\uFEFF${EXAMPLE_TEXT}`, CONFIG_FILE)).not.toThrow();
  });

  it('names the line and column of a JSON syntax error', () => {
    const text = '{\n  "clusters": [\n    { "name": "a" },\n  ]\n}';
    let error: unknown;
    try {
      parseConfigText(text, CONFIG_FILE);
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).problems[0]?.message).toMatch(/^not valid JSON at line 4, column 3: /);
  });
});
