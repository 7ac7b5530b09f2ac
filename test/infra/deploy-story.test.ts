import { Template } from 'aws-cdk-lib/assertions';
import { buildSentinelApp, EXAMPLE_CONFIG_FILE } from '../../infra/sentinel-app.ts';
import { EXAMPLE_CONFIG, newApp } from './synth-sentinel-app.ts';

const OPS = { account: '111122223333', region: 'eu-west-1' };
const WORKLOAD_A = { account: '222233334444', region: 'us-west-2' };
const SINK_ARN = 'arn:aws:oam:eu-west-1:111122223333:sink/8a2b1c3d-0000-4000-8000-1234567890ab';

/** Synthesize the app as `cdk deploy` does with a profile's credentials: CDK_DEFAULT_ACCOUNT and _REGION are theirs. */
function synthesizeAs(credentials: { account: string; region: string }, context: { sinkArn?: string } = {}) {
  const app = newApp({ bundle: false });
  const stacks = buildSentinelApp(app, {
    configFile: EXAMPLE_CONFIG,
    opsEnv: credentials,
    ...(context.sinkArn && { sinkArn: context.sinkArn }),
  });
  return { app, stacks };
}

describe(`the deploy story of ${EXAMPLE_CONFIG_FILE} (one workload account)`, () => {
  it('has the SourceAccountStack that step 5 deploys with the workload account’s credentials', () => {
    const { stacks } = synthesizeAs(WORKLOAD_A, { sinkArn: SINK_ARN });

    expect(stacks.source?.stackName).toBe('SourceAccountStack');
    Template.fromStack(stacks.source as never).hasParameter('SinkArn', { Default: SINK_ARN });
  });

  it('has the OpsStack with a sink for the workload account with the ops account’s credentials', () => {
    const { stacks } = synthesizeAs(OPS);

    Template.fromStack(stacks.ops).hasResourceProperties('AWS::Oam::Sink', {});
  });
});
