import * as path from 'node:path';
import { Annotations, type App, type Environment, LegacyStackSynthesizer, Token, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { readConfigFile } from '../io/input-files.ts';
import { checkDeployable } from '../shared/config/config-verdict.ts';
import { parseSinkArn } from '../shared/config/deployment-config.ts';
import {
  forwardingRegions,
  type LinkedRegion,
  linkedRegions,
  OPS_STACK,
  type OpsPlacement,
  opsPlacement,
  SHARING_ROLE_STACK,
  SOURCE_ACCOUNT_STACK,
  sharingRoleAccounts,
  tripwireStacks,
} from '../shared/config/deployment-shape.ts';
import { SentinelError } from '../shared/errors.ts';
import { ForwardingStack } from './forwarding-stack.ts';
import { MetricsSinkStack } from './metrics-sink-stack.ts';
import { OpsStack } from './ops-stack.ts';
import { SharingRoleStack } from './sharing-role-stack.ts';
import { SourceAccountStack } from './source-account-stack.ts';
import { TripwireStack } from './tripwire-stack.ts';
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
  /**
   * The account and Region of the credentials cdk runs with (CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION). They place
   * the OpsStack only when the configuration names no `ops` account and Region, which it must when clusters live in
   * other accounts: a workload account's credentials say nothing about the ops account. Unset: environment-agnostic.
   */
  readonly credentials?: Environment;
  /** CDK context `sinkArn`: a sink's ARN, the default of the SinkArn parameter of the SourceAccountStack of its Region. */
  readonly sinkArn?: string;
}

export interface SentinelStacks {
  readonly ops: OpsStack;
  /** The ops account's sinks in Regions other than its own: `MetricsSinkStack-REGION`. */
  readonly sinks: readonly MetricsSinkStack[];
  /** What the workload accounts deploy: `SourceAccountStack` in the ops Region, `SourceAccountStack-REGION` elsewhere. */
  readonly sources: readonly SourceAccountStack[];
  /** The SourceAccountStack of the ops stack's Region, when clusters of other accounts are there. */
  readonly source?: SourceAccountStack;
  /** What every workload account whose metrics a tripwire reads deploys once, in the ops Region. */
  readonly sharingRole?: SharingRoleStack;
  /** The tripwire alarms, in the ops account, in the Region of the clusters they watch. */
  readonly tripwires: readonly TripwireStack[];
  /** The ops account's forwarding of tripwire changes and node events from each other Region to the ops Region. */
  readonly forwarding: readonly ForwardingStack[];
}

/** The context named a sink that no stack of this deployment links to. */
export class SinkContextError extends SentinelError {}

/**
 * The whole CDK app: the OpsStack for the ops account, a MetricsSinkStack for each other Region where clusters of
 * workload accounts live, a SourceAccountStack for the workload accounts of each such Region, and the cdk-nag
 * AwsSolutions and Serverless packs over every stack (an unacknowledged error fails synth; each acknowledgement carries
 * its reason into the template's metadata). Which stacks exist depends on the configuration only, never on the
 * credentials: the ops account and every workload account synthesize the same app (docs/deploy.md).
 */
export function buildSentinelApp(app: App, options: SentinelAppOptions): SentinelStacks {
  const { config } = readConfigFile(options.configFile);
  const known = (value: string | undefined) => (value === undefined || Token.isUnresolved(value) ? undefined : value);
  const credentials = {
    ...(known(options.credentials?.account) && { account: known(options.credentials?.account) }),
    ...(known(options.credentials?.region) && { region: known(options.credentials?.region) }),
  };
  const warnings = checkDeployable(config, options.configFile);
  const ops = opsPlacement(config, credentials);
  const env = { ...(ops.account && { account: ops.account }), ...(ops.region && { region: ops.region }) };
  const regions = linkedRegions(config, ops);
  const contextSink = options.sinkArn === undefined ? undefined : sinkOfContext(options.sinkArn, ops, regions);
  const home = regions.find((linked) => linked.isOpsRegion);
  const opsStack = new OpsStack(app, OPS_STACK, {
    description: 'k8s-incident-sentinel: pages on-call once per Kubernetes control-plane incident',
    config,
    configFile: path.resolve(options.configFile),
    ...(Object.keys(env).length > 0 && { env }),
    ...(home && { sink: home.existingSink ? { existingArn: home.existingSink } : { accounts: home.accounts } }),
    linkedAccounts: regions.flatMap((linked) => linked.accounts.map((account) => ({ account, region: linked.region }))),
  });
  for (const warning of warnings) {
    Annotations.of(opsStack).addWarningV2(warning.code, `${options.configFile} ${warning.path}: ${warning.message}`);
  }
  const sinks = regions.flatMap((linked) =>
    linked.sinkStack && !linked.isOpsRegion
      ? [
          new MetricsSinkStack(app, linked.sinkStack, {
            description: `k8s-incident-sentinel: the OAM sink the workload accounts of ${linked.region} link their cluster metrics to`,
            env: { ...(ops.account && { account: ops.account }), region: linked.region },
            sinkName: `${OPS_STACK}-metrics`,
            accounts: linked.accounts,
          }),
        ]
      : [],
  );
  const namespaces = watchedNamespaces(config);
  const sources = regions.map((linked) => {
    const sinkArn = linked.existingSink ?? (contextSink?.region === linked.region ? options.sinkArn : undefined);
    return new SourceAccountStack(app, linked.sourceStack, {
      description: `k8s-incident-sentinel: shares the cluster metrics of this workload account in ${linked.region} with the ops account`,
      // The Region is the sink's; the account is whichever workload account deploys it.
      env: { region: linked.region },
      namespaces,
      ...(ops.account && { opsAccount: ops.account }),
      ...(ops.region && { opsRegion: ops.region }),
      ...(sinkArn && { sinkArn }),
      // No assets and a template under the 51,200 bytes CloudFormation takes in a request: workload accounts need no
      // `cdk bootstrap`, and LegacyStackSynthesizer asks for no bootstrap role or version.
      synthesizer: new LegacyStackSynthesizer(),
    });
  });
  const readers = sharingRoleAccounts(config, ops);
  const sharingRole =
    readers.length > 0 && ops.account
      ? new SharingRoleStack(app, SHARING_ROLE_STACK, {
          description:
            "k8s-incident-sentinel: lets the ops account's tripwire alarms read this workload account's cluster metrics",
          ...(ops.region && { env: { region: ops.region } }),
          opsAccount: ops.account,
        })
      : undefined;
  const tripwires = tripwireStacks(config, ops).map(
    (shape) =>
      new TripwireStack(app, shape.stackName, {
        description: `k8s-incident-sentinel: tripwire alarms of ${shape.clusters.length} clusters${shape.region ? ` in ${shape.region}` : ''}`,
        ...((ops.account || shape.region) && {
          env: { ...(ops.account && { account: ops.account }), ...(shape.region && { region: shape.region }) },
        }),
        config,
        deployment: OPS_STACK,
        clusters: shape.clusters,
      }),
  );
  const forwarding = forwardingRegions(config, ops).map(
    (shape) =>
      new ForwardingStack(app, shape.stackName, {
        description: `k8s-incident-sentinel: forwards tripwire changes and node events of ${shape.region} to the ops Region`,
        env: { ...(ops.account && { account: ops.account }), region: shape.region },
        deployment: OPS_STACK,
        opsRegion: ops.region as string,
        tripwires: shape.tripwires,
        opsAccountNodes: shape.opsAccountNodes,
      }),
  );
  Validations.of(app).addPlugins(
    new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }),
    new ServerlessChecks(),
  );
  const source = sources.find((stack) => stack.stackName === SOURCE_ACCOUNT_STACK);
  return {
    ops: opsStack,
    sinks,
    sources,
    ...(source && { source }),
    ...(sharingRole && { sharingRole }),
    tripwires,
    forwarding,
  };
}

/** The sink `-c sinkArn` names: one of the ops account's, in a Region with clusters of other accounts. */
function sinkOfContext(arn: string, ops: OpsPlacement, regions: readonly LinkedRegion[]) {
  const sink = parseSinkArn(arn);
  if (!sink) {
    throw new SinkContextError(
      `-c sinkArn=${arn} is not an OAM sink ARN: give the SinkArn output of the OpsStack (or of MetricsSinkStack-REGION), arn:aws:oam:REGION:ACCOUNT:sink/ID`,
    );
  }
  if (ops.account !== undefined && sink.account !== ops.account) {
    throw new SinkContextError(
      `-c sinkArn=${arn} is a sink of account ${sink.account}, but the ops account is ${ops.account}: give the SinkArn output of the ops account's stack`,
    );
  }
  if (!regions.some((linked) => linked.region === sink.region)) {
    const where = regions.map((linked) => linked.region).join(', ') || 'none';
    throw new SinkContextError(
      `-c sinkArn=${arn} is in ${sink.region}, where no cluster of another account is (Regions with such clusters: ${where})`,
    );
  }
  return sink;
}
