import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { jest } from '@jest/globals';
import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { CLOUDFORMATION_QUOTAS } from '../../infra/deployment-quotas.ts';
import { buildSentinelApp, type SentinelStacks } from '../../infra/sentinel-app.ts';
import { PROJECT_ROOT } from '../../infra/sentinel-function.ts';
import { EXAMPLE_CONFIG, fixture, newApp, TEST_CONFIG } from '../../support/synth-sentinel-app.ts';

/**
 * docs/deploy.md, followed by each account of a deployment in turn: the ops account runs cdk with its credentials,
 * then each workload account with its own (whose default Region need not be the ops stack's). Every one of them must
 * find the stacks the docs tell it to deploy, with the links and the permissions they need.
 */

const OPS = { account: '111122223333', region: 'eu-west-1' };
const WORKLOAD_A = { account: '222233334444', region: 'us-west-2' };
const WORKLOAD_B = { account: '555566667777', region: 'eu-central-1' };
const SINK_ARN = 'arn:aws:oam:eu-west-1:111122223333:sink/8a2b1c3d-0000-4000-8000-1234567890ab';
const US_SINK_ARN = 'arn:aws:oam:us-east-1:111122223333:sink/5e6f7a8b-0000-4000-8000-1234567890ab';
const EXISTING_SINK_ARN = 'arn:aws:oam:eu-west-1:111122223333:sink/0f0e0d0c-0000-4000-8000-000000000001';

const DEPLOY_DOC = readFileSync(path.join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8');

/** The stacks docs/deploy.md deploys, as patterns: `SourceAccountStack-REGION` stands for any Region. */
const documentedStacks = [...DEPLOY_DOC.matchAll(/npx cdk deploy ([A-Za-z][\w-]*)/g)].map(
  ([, name]) => new RegExp(`^${(name ?? '').replace('REGION', '[a-z]{2}(-[a-z]+)+-\\d').replace(/-N$/, '-\\d+')}$`),
);

const outdirs: string[] = [];
// Synth prints the configurations' warnings (no digest recipient, ...) to stderr; they are not what this is about.
let stderr: ReturnType<typeof jest.spyOn>;
beforeEach(() => {
  stderr = jest.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => stderr.mockRestore());
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

interface Synthesized extends SentinelStacks {
  readonly names: string[];
  readonly template: (name: string) => Template;
}

/** Synthesize the app as `cdk deploy` does with a profile's credentials: CDK_DEFAULT_ACCOUNT and _REGION are theirs. */
function synthesizeAs(
  configFile: string,
  credentials: { account: string; region: string },
  context: { sinkArn?: string } = {},
): Synthesized {
  const app = newApp({ bundle: false });
  outdirs.push(app.outdir);
  const stacks = buildSentinelApp(app, { configFile, credentials, ...context });
  const all = app.node.children.filter((child): child is Stack => child instanceof Stack);
  const byName = new Map(all.map((stack) => [stack.stackName, stack]));
  return {
    ...stacks,
    names: all.map((stack) => stack.stackName),
    template: (name) => Template.fromStack(byName.get(name) as Stack),
  };
}

const envOf = (synth: Synthesized, name: string) => {
  const stack = [...synth.sources, ...synth.sinks, ...(synth.sharingRole ? [synth.sharingRole] : [])].find(
    (s) => s.stackName === name,
  );
  return { account: stack?.account, region: stack?.region };
};

function expectLinkTo(template: Template, sinkArn: string | undefined) {
  template.hasParameter('SinkArn', { Default: sinkArn ?? Match.absent() });
  template.hasResourceProperties('AWS::Oam::Link', {
    SinkIdentifier: { Ref: 'SinkArn' },
    ResourceTypes: ['AWS::CloudWatch::Metric'],
    LinkConfiguration: { MetricConfiguration: { Filter: Match.stringLikeRegexp("^Namespace IN \\('AWS/EKS'") } },
  });
}

function expectSinkFor(template: Template, accounts: string[]) {
  template.hasResourceProperties('AWS::Oam::Sink', {
    Policy: { Statement: [Match.objectLike({ Principal: { AWS: accounts } })] },
  });
}

/** The role PutMetricAlarm requires in the account whose metrics a cross-account alarm watches. */
function expectSharingRole(template: Template) {
  template.hasResource('AWS::IAM::Role', {
    Condition: 'CreatesSharingRole',
    Properties: Match.objectLike({
      RoleName: 'CloudWatch-CrossAccountSharingRole',
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Condition: {
              ArnEquals: {
                'aws:PrincipalArn':
                  'arn:aws:iam::111122223333:role/aws-service-role/cloudwatch-crossaccount.amazonaws.com/AWSServiceRoleForCloudWatchCrossAccount',
              },
            },
          }),
        ],
      },
      Policies: [
        {
          PolicyName: 'ReadMetrics',
          PolicyDocument: {
            Statement: [
              Match.objectLike({
                Action: ['cloudwatch:GetMetricData', 'cloudwatch:GetMetricStatistics', 'cloudwatch:ListMetrics'],
              }),
            ],
          },
        },
      ],
    }),
  });
}

describe('every stack a shape of deployment synthesizes', () => {
  it.each([
    ['one account', fixture('single-account.json')],
    ['one workload account', EXAMPLE_CONFIG],
    ['several workload accounts', TEST_CONFIG],
    ['clusters in two Regions', fixture('two-regions.json')],
    ['an existing sink', fixture('existing-sink.json')],
  ])('is one that docs/deploy.md tells an account to deploy: %s', (_, file) => {
    const { names } = synthesizeAs(file, OPS);

    expect(names.filter((name) => !documentedStacks.some((pattern) => pattern.test(name)))).toEqual([]);
  });
});

describe('one account', () => {
  it('is the OpsStack alone, where the credentials are', () => {
    const synth = synthesizeAs(fixture('single-account.json'), OPS);

    expect(synth.names).toEqual(['OpsStack', 'TripwireStack-0']);
    expect(synth.ops.resolve([synth.ops.account, synth.ops.region])).toEqual([OPS.account, OPS.region]);
    synth.template('OpsStack').resourceCountIs('AWS::Oam::Sink', 0);
  });
});

describe('an ops account with one workload account (the example configuration)', () => {
  it('gives the ops account the OpsStack, with a sink the workload account may link to', () => {
    const synth = synthesizeAs(EXAMPLE_CONFIG, OPS);

    expect(synth.names).toEqual(['OpsStack', 'SourceAccountStack', 'SharingRoleStack', 'TripwireStack-0']);
    expectSinkFor(synth.template('OpsStack'), [WORKLOAD_A.account]);
    synth.template('OpsStack').hasOutput('SinkArn', {});
  });

  it('gives the workload account, with its own credentials and Region, the SourceAccountStack of step 5', () => {
    const synth = synthesizeAs(EXAMPLE_CONFIG, WORKLOAD_A, { sinkArn: SINK_ARN });

    expect(synth.names).toContain('SourceAccountStack');
    expect(envOf(synth, 'SourceAccountStack').region).toBe(OPS.region);
    expectLinkTo(synth.template('SourceAccountStack'), SINK_ARN);
    expectSharingRole(synth.template('SharingRoleStack'));
  });

  it('keeps the OpsStack in the ops account whoever synthesizes it', () => {
    const { ops } = synthesizeAs(EXAMPLE_CONFIG, WORKLOAD_A, { sinkArn: SINK_ARN });

    expect(ops.resolve([ops.account, ops.region])).toEqual([OPS.account, OPS.region]);
  });

  it('refuses a sink ARN of another account as the context of step 5', () => {
    expect(() =>
      synthesizeAs(EXAMPLE_CONFIG, WORKLOAD_A, { sinkArn: SINK_ARN.replace(OPS.account, WORKLOAD_A.account) }),
    ).toThrow(/is a sink of account 222233334444, but the ops account is 111122223333/);
  });
});

describe('an ops account with several workload accounts', () => {
  it('lets every workload account link to the one sink', () => {
    expectSinkFor(synthesizeAs(TEST_CONFIG, OPS).template('OpsStack'), [WORKLOAD_A.account, WORKLOAD_B.account]);
  });

  it.each([
    ['A', WORKLOAD_A],
    ['B', WORKLOAD_B],
  ])('gives workload account %s its SourceAccountStack', (_, credentials) => {
    const synth = synthesizeAs(TEST_CONFIG, credentials, { sinkArn: SINK_ARN });

    expect(synth.names).toContain('SourceAccountStack');
    expectLinkTo(synth.template('SourceAccountStack'), SINK_ARN);
  });
});

describe('clusters in two Regions', () => {
  it('gives the ops account a sink in each Region that has clusters of workload accounts', () => {
    const synth = synthesizeAs(fixture('two-regions.json'), OPS);

    expect(synth.names).toEqual([
      'OpsStack',
      'MetricsSinkStack-us-east-1',
      'SourceAccountStack',
      'SourceAccountStack-us-east-1',
      'SharingRoleStack',
      'TripwireStack-0',
      'TripwireStack-us-east-1-0',
      'ForwardingStack-us-east-1',
    ]);
    expectSinkFor(synth.template('OpsStack'), [WORKLOAD_A.account]);
    expectSinkFor(synth.template('MetricsSinkStack-us-east-1'), [WORKLOAD_A.account, WORKLOAD_B.account]);
    expect(envOf(synth, 'MetricsSinkStack-us-east-1')).toEqual({ account: OPS.account, region: 'us-east-1' });
  });

  it('gives a workload account the SourceAccountStack of each Region, with the sink of that Region', () => {
    const synth = synthesizeAs(fixture('two-regions.json'), WORKLOAD_B, { sinkArn: US_SINK_ARN });

    expect(envOf(synth, 'SourceAccountStack-us-east-1').region).toBe('us-east-1');
    expectLinkTo(synth.template('SourceAccountStack-us-east-1'), US_SINK_ARN);
    expectLinkTo(synth.template('SourceAccountStack'), undefined);
  });

  it('creates the sharing role once per account, in the ops Region, and in no Region’s SourceAccountStack', () => {
    const synth = synthesizeAs(fixture('two-regions.json'), WORKLOAD_A, { sinkArn: SINK_ARN });

    expectSharingRole(synth.template('SharingRoleStack'));
    expect(envOf(synth, 'SharingRoleStack').region).toBe(OPS.region);
    for (const name of ['SourceAccountStack', 'SourceAccountStack-us-east-1']) {
      synth
        .template(name)
        .resourcePropertiesCountIs('AWS::IAM::Role', { RoleName: 'CloudWatch-CrossAccountSharingRole' }, 0);
    }
  });

  it('gives every cluster its tripwire in its own Region, and forwards the other Region’s changes to the ops Region', () => {
    const synth = synthesizeAs(fixture('two-regions.json'), OPS);
    const regionOf = (name: string) => synth.tripwires.find((stack) => stack.stackName === name)?.region;

    expect([regionOf('TripwireStack-0'), regionOf('TripwireStack-us-east-1-0')]).toEqual([OPS.region, 'us-east-1']);
    synth.template('ForwardingStack-us-east-1').hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { detail: { alarmName: [{ prefix: 'OpsStack-tripwire-' }] } },
      Targets: [Match.objectLike({ Arn: 'arn:aws:events:eu-west-1:111122223333:event-bus/default' })],
    });
  });

  it('pins the sink ARN parameter to the Region and the ops account', () => {
    const synth = synthesizeAs(fixture('two-regions.json'), WORKLOAD_B);

    synth.template('SourceAccountStack-us-east-1').hasParameter('SinkArn', {
      AllowedPattern: '^arn:aws[a-z-]*:oam:us-east-1:111122223333:sink/[A-Za-z0-9-]+$',
    });
  });
});

describe('stacks deployed without cdk bootstrap', () => {
  it('ask CloudFormation for no bootstrap role or version, and fit in a request without the bootstrap bucket', () => {
    const app = newApp({ bundle: false });
    outdirs.push(app.outdir);
    buildSentinelApp(app, { configFile: fixture('two-regions.json'), credentials: OPS });
    const assembly = app.synth();
    const bootstrapless = assembly.stacks.filter(
      (artifact) => artifact.stackName !== 'OpsStack' && !artifact.stackName.startsWith('TripwireStack'),
    );

    expect(bootstrapless.map((artifact) => artifact.stackName).sort()).toEqual([
      'ForwardingStack-us-east-1',
      'MetricsSinkStack-us-east-1',
      'SharingRoleStack',
      'SourceAccountStack',
      'SourceAccountStack-us-east-1',
    ]);
    expect(
      bootstrapless.flatMap((artifact) => [
        ...(artifact.assumeRoleArn ? [`${artifact.stackName} assumes ${artifact.assumeRoleArn}`] : []),
        ...(artifact.cloudFormationExecutionRoleArn ? [`${artifact.stackName} passes an execution role`] : []),
        ...(artifact.requiresBootstrapStackVersion ? [`${artifact.stackName} needs a bootstrap version`] : []),
        ...(JSON.stringify(artifact.template, undefined, 1).length > CLOUDFORMATION_QUOTAS.templateBytesInRequest
          ? [`${artifact.stackName} is too large for a request`]
          : []),
      ]),
    ).toEqual([]);
  });
});

describe('an ops account that already has a sink', () => {
  it('creates no sink and gives the existing one as the SinkArn output', () => {
    const synth = synthesizeAs(fixture('existing-sink.json'), OPS);

    synth.template('OpsStack').resourceCountIs('AWS::Oam::Sink', 0);
    synth.template('OpsStack').hasOutput('SinkArn', { Value: EXISTING_SINK_ARN });
  });

  it('links the workload accounts to it without a sink ARN in the context', () => {
    expectLinkTo(
      synthesizeAs(fixture('existing-sink.json'), WORKLOAD_A).template('SourceAccountStack'),
      EXISTING_SINK_ARN,
    );
  });
});
