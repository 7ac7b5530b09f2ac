import { loadConfig, parseConfigText } from '../../shared/config/deployment-config.ts';
import { FleetSizeError, MAX_FLEET_CLUSTERS } from '../../shared/config/fleet-size.ts';
import { CredentialInConfigError } from '../../shared/config/template-strings.ts';
import type { InputError } from '../../shared/errors.ts';
import { configuredPlan } from '../../shared/pipeline/build-plan.ts';
import { CONFIG_FILE, customRule, exampleWith } from '../support/config-fixtures.ts';

/** The error loading a configuration throws. */
function errorOf(value: unknown): unknown {
  try {
    loadConfig(value, CONFIG_FILE);
  } catch (error) {
    return error;
  }
  throw new Error('the configuration loaded without an error');
}

const DIMENSIONS = ['clusters', 0, 'source', 'custom', 'webhook.failures', 'dimensions'] as const;

describe('credentials anywhere in the configuration', () => {
  it.each([
    [
      'user info in runbookBaseUrl',
      [['notifications', 'runbookBaseUrl'], 'https://ci:hunter2@git.example.com/runbooks/'],
      '$.notifications.runbookBaseUrl',
    ],
    [
      'a token in a maintenance reason',
      [['maintenance', 0, 'reason'], 'upgrade, see https://wiki.example.com/page?token=abc123'],
      '$.maintenance[0].reason',
    ],
    [
      'a key parameter in a custom rule’s runbook',
      [['rules', 'custom'], [customRule({ runbook: 'https://runbooks.example.com/etcd?api_key=abc' })]],
      '$.rules.custom[0].runbook',
    ],
    [
      'an Opsgenie key in a hint',
      [['rules', 'custom'], [customRule({ hints: [{ text: 'curl -H "Authorization: GenieKey 1b2c"', source: 'x' }] })]],
      '$.rules.custom[0].hints[0].text',
    ],
    [
      'an AWS access key in a metric dimension',
      [[...DIMENSIONS], { ClusterName: 'prod-euw1', Key: 'AKIAIOSFODNN7EXAMPLE' }],
      '$.clusters[0].source.custom["webhook.failures"].dimensions.Key',
    ],
    [
      'a PagerDuty-looking key in a hint',
      [['rules', 'custom'], [customRule({ hints: [{ text: 'key e93facc04764012d7bfb002500d5d1a6', source: 'x' }] })]],
      '$.rules.custom[0].hints[0].text',
    ],
    [
      'a signature in a plain-text reason',
      [['maintenance', 0, 'reason'], 'presigned X-Amz-Signature=0f9e8d7c6b5a'],
      '$.maintenance[0].reason',
    ],
  ] as const)('refuses %s with CredentialInConfigError naming its path', (_what, change, path) => {
    const error = errorOf(exampleWith(change as never));

    expect(error).toBeInstanceOf(CredentialInConfigError);
    expect((error as InputError).problems.map((p) => p.path)).toEqual([path]);
  });

  it('accepts the shipped example, its OAM sink ARN and its runbook URL included', () => {
    const sink = 'arn:aws:oam:eu-west-1:111122223333:sink/f3b1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

    expect(() => loadConfig(exampleWith([['ops', 'existingSinks'], [sink]]), CONFIG_FILE)).not.toThrow();
  });
});

describe('the nesting bound', () => {
  it('refuses a 200 KB file nested thousands deep at once, before anything walks its strings', () => {
    const depth = 25_000;
    const text = `{"clusters":${'[{"a":'.repeat(depth)}"x"${'}]'.repeat(depth)}}`;
    expect(text.length).toBeGreaterThan(200_000);
    const started = performance.now();

    expect(() => parseConfigText(text, CONFIG_FILE)).toThrow(/nests deeper than 32 levels/);
    // The secret scan walked it first and took close to a minute; the bound stops at depth 33.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('the largest fleet', () => {
  const fleet = (size: number) => ({ clusters: Array.from({ length: size }, (_, i) => ({ name: `c-${i}` })) });

  it(`plans a fleet of ${MAX_FLEET_CLUSTERS} clusters, the documented maximum`, () => {
    const { config, ruleSet } = loadConfig(fleet(MAX_FLEET_CLUSTERS), CONFIG_FILE);

    expect(configuredPlan({ config, ruleSet }).clusters).toHaveLength(MAX_FLEET_CLUSTERS);
  });

  it('refuses one cluster more with FleetSizeError, before reading the clusters', () => {
    const error = errorOf(fleet(MAX_FLEET_CLUSTERS + 1));

    expect(error).toBeInstanceOf(FleetSizeError);
    expect((error as InputError).problems).toEqual([
      {
        path: '$.clusters',
        message: `names ${MAX_FLEET_CLUSTERS + 1} clusters; one deployment watches at most ${MAX_FLEET_CLUSTERS}: split the fleet across deployments (docs/resilience.md)`,
      },
    ]);
  });
});
