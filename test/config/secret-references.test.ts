import { configVerdict } from '../../shared/config/config-verdict.ts';
import { describeSecretReference, loadConfig, secretStoreOf } from '../../shared/config/deployment-config.ts';
import { PARAMETER_LEVELS_MAX, PARAMETER_NAME_MAX } from '../../shared/config/template-strings.ts';
import { pagingIntegrations } from '../../shared/delivery/paging-integrations.ts';
import { CONFIG_FILE, exampleWith, problemsOf } from '../support/config-fixtures.ts';

/** The example configuration with its first paging subscriber's routing key kept as `reference` says. */
const withRoutingKey = (reference: unknown) =>
  exampleWith([['subscriptions', 'paging', 0, 'subscribers', 0, 'routingKeySecret'], reference]);
const AT = '$.subscriptions.paging[0].subscribers[0].routingKeySecret';

/** A configuration of one cluster whose paging topic has these subscribers. */
const pagingTo = (...subscribers: object[]) =>
  loadConfig({ clusters: [{ name: 'a' }], subscriptions: { paging: [{ subscribers }] } }, CONFIG_FILE).config;

describe('a secret reference', () => {
  it.each([
    ['a Secrets Manager secret', { secretName: 'sentinel/pagerduty', jsonField: 'routingKey' }],
    ['a SecureString parameter', { parameterName: '/sentinel/pagerduty-routing-key' }],
    ['a parameter at the root, without a "/"', { parameterName: 'pagerduty-routing-key', jsonField: 'key' }],
    [
      `a parameter ${PARAMETER_LEVELS_MAX} levels deep`,
      { parameterName: `/${'l/'.repeat(PARAMETER_LEVELS_MAX - 1)}routing-key` },
    ],
  ])('names %s', (_, reference) => {
    const [subscriber] =
      loadConfig(withRoutingKey(reference), CONFIG_FILE).config.subscriptions.paging[0]?.subscribers ?? [];

    expect(subscriber).toMatchObject({ protocol: 'pagerduty', routingKeySecret: reference });
  });

  it.each([
    [
      {},
      'expected "secretName" (a Secrets Manager secret) or "parameterName" (a Parameter Store SecureString parameter)',
    ],
    [{ jsonField: 'routingKey' }, 'expected "secretName" (a Secrets Manager secret) or "parameterName"'],
    [
      { secretName: 'sentinel/pagerduty', parameterName: '/sentinel/pagerduty' },
      'expected one of "secretName" and "parameterName", not both',
    ],
  ])('refuses %j at its path, saying what it needs', (reference, message) => {
    expect(problemsOf(withRoutingKey(reference))).toEqual([{ path: AT, message: expect.stringContaining(message) }]);
  });

  it('refuses a key it does not know, as it did before parameters', () => {
    expect(problemsOf(withRoutingKey({ parameterName: '/sentinel/pd', jsonfield: 'key' }))).toEqual([
      { path: AT, message: 'Unrecognized key: "jsonfield"' },
    ]);
  });

  it.each([
    ['levels but no leading "/"', 'sentinel/pagerduty', 'with a "/" before each level'],
    ['a space', '/sentinel/pager duty', 'letters, digits and _.-'],
    ['a trailing "/"', '/sentinel/', 'letters, digits and _.-'],
    ['the prefix "aws" that Parameter Store keeps', '/aws/reference/secretsmanager/key', 'start with "aws" or "ssm"'],
    ['the prefix "ssm", whatever the case', 'SSM-key', 'start with "aws" or "ssm"'],
    ['more levels than Parameter Store allows', `/${'l/'.repeat(PARAMETER_LEVELS_MAX)}key`, 'at most 15 levels'],
    ['more characters than Parameter Store allows', `/${'k'.repeat(PARAMETER_NAME_MAX)}`, 'at most 1011'],
  ])('refuses a parameter name with %s, at the field', (_, parameterName, message) => {
    expect(problemsOf(withRoutingKey({ parameterName }))).toEqual([
      { path: `${AT}.parameterName`, message: expect.stringContaining(message) },
    ]);
  });

  it('is named in errors and logs by its store and name, never by what it holds', () => {
    expect([
      describeSecretReference({ secretName: 'sentinel/pagerduty', jsonField: 'routingKey' }),
      describeSecretReference({ parameterName: '/sentinel/pagerduty-routing-key' }),
      secretStoreOf({ parameterName: '/sentinel/pagerduty-routing-key' }),
    ]).toEqual([
      'secret sentinel/pagerduty',
      'parameter /sentinel/pagerduty-routing-key',
      { store: 'parameter', name: '/sentinel/pagerduty-routing-key' },
    ]);
  });
});

describe('an integration whose key is a parameter', () => {
  it('has an id of its own, and a secret of the same name keeps the id it had', () => {
    const config = pagingTo(
      { protocol: 'pagerduty', routingKeySecret: { secretName: 'sentinel/pd', jsonField: 'key' } },
      { protocol: 'pagerduty', routingKeySecret: { parameterName: 'sentinel-pd', jsonField: 'key' } },
      { protocol: 'opsgenie', apiKeySecret: { parameterName: '/sentinel/opsgenie' } },
    );

    expect(pagingIntegrations(config).map((integration) => integration.id)).toEqual([
      'pagerduty:sentinel/pd#key',
      'pagerduty:parameter:sentinel-pd#key',
      'opsgenie:parameter:/sentinel/opsgenie',
    ]);
  });

  it('is the same subscriber as one that names the same parameter, and not as one that names a secret', () => {
    const parameter = { protocol: 'pagerduty', routingKeySecret: { parameterName: '/sentinel/pd' } };
    const secret = { protocol: 'pagerduty', routingKeySecret: { secretName: '/sentinel/pd' } };

    expect(configVerdict(pagingTo(parameter, secret)).errors).toEqual([]);
    expect(configVerdict(pagingTo(parameter, parameter)).errors.map((e) => e.path)).toEqual([
      '$.subscriptions.paging[0].subscribers[1]',
    ]);
  });
});
