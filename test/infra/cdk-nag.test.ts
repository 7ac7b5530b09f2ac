import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { PROJECT_ROOT } from '../../infra/sentinel-function.ts';
import {
  EXAMPLE_CONFIG,
  fixture,
  type SynthesizedSentinelApp,
  synthSentinelApp,
} from '../../support/synth-sentinel-app.ts';

const DEPLOY_DOC = readFileSync(path.join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8');

/**
 * The test configuration (an explicit environment, linked accounts), the shipped example (environment-agnostic, as
 * `cdk synth` without credentials produces it) and one that leaves encryption to each service's own key, with CDK's built-in CloudFormation validation on, as `cdk synth`
 * runs it. Synth itself already fails on an unacknowledged error finding; these tests also catch warnings and CDK's
 * own annotations.
 */
const apps: [string, SynthesizedSentinelApp][] = [];

beforeAll(() => {
  apps.push(['the test configuration', synthSentinelApp({ bundle: false, validation: true })]);
  apps.push([
    'the example configuration',
    synthSentinelApp({ bundle: false, validation: true, configFile: EXAMPLE_CONFIG, credentials: {} }),
  ]);
  apps.push([
    'a configuration without a key of its own',
    synthSentinelApp({ bundle: false, validation: true, configFile: fixture('aws-managed-keys.json') }),
  ]);
});

afterAll(() => {
  for (const [, synth] of apps) synth.dispose();
});

const stacksOf = (synth: SynthesizedSentinelApp) => [synth.ops, ...(synth.source ? [synth.source] : [])];

describe.each([
  ['AwsSolutions', () => new AwsSolutionsChecks()],
  ['Serverless', () => new ServerlessChecks()],
])('the cdk-nag %s pack', (_, pack) => {
  it('finds nothing unacknowledged, error or warning, in any stack', () => {
    for (const [name, synth] of apps) {
      const { violations } = pack().validateScope(synth.app);
      expect({ name, violations }).toEqual({ name, violations: [] });
    }
  });
});

describe('synthesis', () => {
  it('covers the OpsStack and the SourceAccountStack', () => {
    expect(apps.map(([, synth]) => stacksOf(synth).map((stack) => stack.stackName))).toEqual([
      ['OpsStack', 'SourceAccountStack'],
      ['OpsStack', 'SourceAccountStack'],
      ['OpsStack'],
    ]);
  });

  it('leaves no error or warning annotation on any stack', () => {
    for (const [, synth] of apps) {
      for (const stack of stacksOf(synth)) {
        const annotations = Annotations.fromStack(stack);
        const found = [
          ...annotations.findError('*', Match.stringLikeRegexp('.*')),
          ...annotations.findWarning('*', Match.stringLikeRegexp('.*')),
        ].map((message) => `${message.id}: ${JSON.stringify(message.entry.data)}`);
        expect({ stack: stack.stackName, found }).toEqual({ stack: stack.stackName, found: [] });
      }
    }
  });

  it('writes a validation report without violations', () => {
    for (const [, synth] of apps) {
      const report = JSON.parse(readFileSync(path.join(synth.assembly.directory, 'validation-report.json'), 'utf8'));
      const violations = report.pluginReports.flatMap((plugin: { violations: unknown[] }) => plugin.violations);
      expect(violations).toEqual([]);
    }
  });
});

describe('every cdk-nag acknowledgement', () => {
  const acknowledgements = () =>
    apps.flatMap(([, synth]) =>
      synth.app.node.findAll().flatMap((construct) =>
        construct.node.metadata
          .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
          .map(([id, reason]) => ({ path: construct.node.path, id: id.replace(/^annotation::/i, ''), reason })),
      ),
    );

  it('is made somewhere', () => {
    expect(acknowledgements().length).toBeGreaterThan(0);
  });

  it('carries a reason of at least a sentence', () => {
    const short = acknowledgements().filter(({ reason }) => reason.trim().split(/\s+/).length < 8);
    expect(short).toEqual([]);
  });

  it('is listed with its reason in docs/deploy.md', () => {
    const missing = acknowledgements().filter(
      ({ id, reason }) => !DEPLOY_DOC.includes(id.replace(/\[.*$/, '')) || !DEPLOY_DOC.includes(reason),
    );
    expect(missing).toEqual([]);
  });
});
