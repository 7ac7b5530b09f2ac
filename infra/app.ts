import { App } from 'aws-cdk-lib';
import { SentinelError } from '../shared/errors.ts';
import { buildSentinelApp, DEFAULT_CONFIG_FILE } from './sentinel-app.ts';

/**
 * `cdk synth` / `cdk deploy` entry point. CDK context `config` names the deployment configuration; `sinkArn` is the
 * OpsStack's SinkArn output, for deploying SourceAccountStack into workload accounts.
 */
const app = new App();
const context = (key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  return typeof value === 'string' && value !== '' ? value : undefined;
};

try {
  buildSentinelApp(app, {
    configFile: context('config') ?? DEFAULT_CONFIG_FILE,
    opsEnv: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    ...(context('sinkArn') && { sinkArn: context('sinkArn') }),
  });
} catch (error) {
  // A bad configuration is the user's to fix: say what and where, without a stack trace.
  if (error instanceof SentinelError) {
    process.stderr.write(`sentinel: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
app.synth();
