import { App } from 'aws-cdk-lib';
import { SentinelError } from '../shared/errors.ts';
import { buildSentinelApp, configFileOf } from './sentinel-app.ts';

/**
 * `cdk synth` / `cdk deploy` entry point. CDK context `config` names the deployment configuration (there is no
 * default: `example=true` picks the shipped example); `sinkArn` is a sink's ARN (the SinkArn output of the OpsStack or
 * of a MetricsSinkStack), for deploying the SourceAccountStack of its Region into workload accounts. The credentials
 * place the OpsStack only when the configuration names no ops account and Region.
 */
const app = new App();
const context = (key: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(key);
  // `-c example=true` arrives as a string, `"example": true` in a context file as a boolean.
  if (typeof value === 'boolean') return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
};

try {
  const config = context('config');
  const example = context('example');
  buildSentinelApp(app, {
    configFile: configFileOf({ ...(config && { config }), ...(example && { example }) }),
    credentials: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
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
