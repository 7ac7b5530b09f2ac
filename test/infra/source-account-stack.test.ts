import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { SourceAccountStack } from '../../infra/source-account-stack.ts';
import { fixture, SINK_ARN, type SynthesizedSentinelApp, synthSentinelApp } from '../../support/synth-sentinel-app.ts';

let synth: SynthesizedSentinelApp;
let template: Template;

beforeAll(() => {
  synth = synthSentinelApp({ bundle: false, sinkArn: SINK_ARN });
  template = Template.fromStack(synth.source as SourceAccountStack);
});

afterAll(() => synth.dispose());

describe('SourceAccountStack', () => {
  it('links the workload account to the sink it is given, for metrics only', () => {
    template.hasResourceProperties('AWS::Oam::Link', {
      SinkIdentifier: { Ref: 'SinkArn' },
      ResourceTypes: ['AWS::CloudWatch::Metric'],
    });
    template.hasParameter('SinkArn', { Type: 'String', Default: SINK_ARN });
  });

  it('shares only the namespaces the poller reads, custom ones included', () => {
    template.hasResourceProperties('AWS::Oam::Link', {
      LinkConfiguration: {
        MetricConfiguration: {
          Filter:
            "Namespace IN ('AWS/EKS', 'ContainerInsights', 'AWS/AutoScaling', 'Karpenter', 'Sentinel/Prometheus')",
        },
      },
    });
  });

  it('asks for the sink ARN as a parameter when the context names none', () => {
    const stack = new SourceAccountStack(new App({ builtinCloudFormationValidation: false }), 'SourceAccountStack', {
      namespaces: ['AWS/EKS'],
    });
    Template.fromStack(stack).hasParameter('SinkArn', {
      Type: 'String',
      Default: Match.absent(),
      AllowedPattern: '^arn:aws[a-z-]*:oam:[a-z0-9-]+:\\d{12}:sink/[A-Za-z0-9-]+$',
    });
  });

  it('needs no cdk bootstrap in the workload account', () => {
    expect(Object.keys(template.toJSON().Parameters)).toEqual(['SinkArn']);
    expect(template.toJSON().Rules).toBeUndefined();
  });

  it('asks CloudFormation for no bootstrap role, so an account never bootstrapped deploys it', () => {
    const artifact = synth.assembly.getStackByName('SourceAccountStack');

    expect(artifact.assumeRoleArn).toBeUndefined();
    expect(artifact.cloudFormationExecutionRoleArn).toBeUndefined();
    expect(artifact.requiresBootstrapStackVersion).toBeUndefined();
  });

  it('is left out when every cluster is in the ops account', () => {
    const { source, dispose } = synthSentinelApp({ bundle: false, configFile: fixture('single-account.json') });
    dispose();
    expect(source).toBeUndefined();
  });
});
