import * as path from 'node:path';
import { Annotations, type App, BootstraplessSynthesizer, type Environment, Token, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { readConfigFile } from '../io/input-files.ts';
import { checkDeployable } from '../shared/config/config-verdict.ts';
import { SentinelError } from '../shared/errors.ts';
import { OpsStack } from './ops-stack.ts';
import { SourceAccountStack } from './source-account-stack.ts';
import { watchedNamespaces } from './watched-namespaces.ts';

/** The documented example, with example subscribers: deployed only when asked for by name or with `example=true`. */
export const EXAMPLE_CONFIG_FILE = 'config/sentinel.example.json';

/** A deploy named no configuration; the example's subscribers are not a default anyone should get by accident. */
export class ConfigNotNamedError extends SentinelError {}

/** The CDK context that chooses the configuration: `-c config=FILE`, or `-c example=true` for the example. */
export interface ConfigContext {
  readonly config?: string;
  readonly example?: string;
}

export function configFileOf(context: ConfigContext): string {
  if (context.config !== undefined) return context.config;
  if (context.example === 'true') return EXAMPLE_CONFIG_FILE;
  throw new ConfigNotNamedError(
    [
      'no deployment configuration named: give your own with -c config=FILE, e.g.',
      '  npx cdk deploy OpsStack -c config=config/sentinel.json',
      `(start from ${EXAMPLE_CONFIG_FILE} and check it with \`npx sentinel validate-config config/sentinel.json\`).`,
      `To synthesize the example with its example subscribers, name it: -c config=${EXAMPLE_CONFIG_FILE} or -c example=true.`,
    ].join('\n'),
  );
}

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
  const known = (value: string | undefined) => (value === undefined || Token.isUnresolved(value) ? undefined : value);
  const opsRegion = known(options.opsEnv?.region);
  const opsAccount = known(options.opsEnv?.account);
  const warnings = checkDeployable(config, options.configFile, {
    ...(opsRegion && { opsRegion }),
    ...(opsAccount && { opsAccount }),
  });
  const ops = new OpsStack(app, 'OpsStack', {
    description: 'k8s-incident-sentinel: pages on-call once per Kubernetes control-plane incident',
    config,
    configFile: path.resolve(options.configFile),
    ...(options.opsEnv && { env: options.opsEnv }),
  });
  for (const warning of warnings) {
    Annotations.of(ops).addWarningV2(warning.code, `${options.configFile} ${warning.path}: ${warning.message}`);
  }
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
