import * as path from 'node:path';
import { type App, BootstraplessSynthesizer, type Environment, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { readConfigFile } from '../io/input-files.ts';
import { OpsStack } from './ops-stack.ts';
import { SourceAccountStack } from './source-account-stack.ts';
import { watchedNamespaces } from './watched-namespaces.ts';

/** The configuration synthesized when CDK context `config` names none. */
export const DEFAULT_CONFIG_FILE = 'config/sentinel.example.json';

export interface SentinelAppOptions {
  /** The deployment configuration file, as the user named it (errors repeat this name). */
  readonly configFile: string;
  /** Where the OpsStack goes; unset for an environment-agnostic template. */
  readonly opsEnv?: Environment;
  /** The OpsStack's SinkArn output, once known, as the SourceAccountStack's parameter default. */
  readonly sinkArn?: string;
}

export interface SentinelStacks {
  readonly ops: OpsStack;
  /** Only when some cluster lives in another account, linked through the OpsStack's sink. */
  readonly source?: SourceAccountStack;
}

/**
 * The whole CDK app: the OpsStack for the ops account, a SourceAccountStack for the workload accounts when clusters
 * live there, and the cdk-nag AwsSolutions and Serverless packs over every stack (an unacknowledged error fails
 * synth; each acknowledgement carries its reason into the template's metadata).
 */
export function buildSentinelApp(app: App, options: SentinelAppOptions): SentinelStacks {
  const { config } = readConfigFile(options.configFile);
  const ops = new OpsStack(app, 'OpsStack', {
    description: 'k8s-incident-sentinel: pages on-call once per Kubernetes control-plane incident',
    config,
    configFile: path.resolve(options.configFile),
    ...(options.opsEnv && { env: options.opsEnv }),
  });
  const source = ops.sink
    ? new SourceAccountStack(app, 'SourceAccountStack', {
        description: 'k8s-incident-sentinel: shares the cluster metrics of this workload account with the ops account',
        namespaces: watchedNamespaces(config),
        ...(options.sinkArn && { sinkArn: options.sinkArn }),
        // No assets and a small template: workload accounts need no `cdk bootstrap`.
        synthesizer: new BootstraplessSynthesizer(),
      })
    : undefined;
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }),
    new ServerlessChecks(),
  );
  return { ops, ...(source && { source }) };
}
