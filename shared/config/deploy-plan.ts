import type { DeploymentConfig } from './deployment-config.ts';
import {
  forwardingRegions,
  linkedRegions,
  OPS_STACK,
  type OpsPlacement,
  opsPlacement,
  SHARING_ROLE_STACK,
  sharingRoleAccounts,
  tripwireStacks,
} from './deployment-shape.ts';

/**
 * The order in which AWS accepts a deployment, worked out from the configuration alone (`sentinel deploy-plan`), and
 * the order in which it lets one go. PutMetricAlarm refuses an alarm on another account's metrics until that account
 * shares them (its link to the sink), has CloudWatch-CrossAccountSharingRole, and the ops account has the
 * AWSServiceRoleForCloudWatchCrossAccount service-linked role
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html): so the OpsStack holds no
 * such alarm and deploys alone first, the sinks and links follow, and the tripwire stacks come last. A sink cannot be
 * deleted while links to it exist (https://docs.aws.amazon.com/OAM/latest/APIReference/API_DeleteSink.html), so
 * teardown removes the links first.
 */

/** The role CloudWatch in the ops account assumes the sharing roles with (PutMetricAlarm, same reference). */
export const CROSS_ACCOUNT_SERVICE_LINKED_ROLE = 'AWSServiceRoleForCloudWatchCrossAccount';
/** The pipeline alarm the smoke test sets to ALARM: it pages through the encrypted paging topic as the others do. */
export const SMOKE_TEST_ALARM = `${OPS_STACK}-PollerErrors`;

/** Who runs a step: the ops account, or one workload account. */
export type StepAccount =
  | { readonly kind: 'ops'; readonly id?: string }
  | { readonly kind: 'workload'; readonly id: string };

/** A stack a step deploys (or destroys), where, and whose metrics its alarms read. */
export interface PlannedStack {
  readonly stack: string;
  readonly region?: string;
  /** Workload accounts whose metrics the stack's alarms read (tripwire stacks only). */
  readonly readsAccounts?: readonly string[];
  /** The workload account whose link this stack creates, and in which Region. */
  readonly links?: string;
}

export interface PlanStep {
  readonly title: string;
  readonly account: StepAccount;
  /** The AWS CLI profile the commands use: `ops`, or `workload-ACCOUNT` (rename to your own). */
  readonly profile: string;
  readonly region?: string;
  readonly commands: readonly string[];
  /** What to run or look at before the next step, and what it should show. */
  readonly checks: readonly string[];
  readonly stacks: readonly PlannedStack[];
}

export const OPS_PROFILE = 'ops';
export const workloadProfile = (account: string): string => `workload-${account}`;

const regionFlag = (region: string | undefined) => (region ? ` --region ${region}` : '');

function stackOutput(stack: string, output: string, region: string | undefined): string {
  return `$(aws cloudformation describe-stacks --stack-name ${stack}${regionFlag(region)} --profile ${OPS_PROFILE} --query "Stacks[0].Outputs[?OutputKey=='${output}'].OutputValue" --output text)`;
}

const stackStatus = (stack: string, region: string | undefined, profile: string) =>
  `aws cloudformation describe-stacks --stack-name ${stack}${regionFlag(region)} --profile ${profile} --query "Stacks[0].StackStatus" shows CREATE_COMPLETE or UPDATE_COMPLETE`;

/** Every step of a first deploy (or of a redeploy after a change), in the order AWS accepts. */
export function deployPlan(config: DeploymentConfig, configFile: string, credentials: OpsPlacement = {}): PlanStep[] {
  const ops = opsPlacement(config, credentials);
  const context = `-c config=${configFile}`;
  const opsAccount: StepAccount = { kind: 'ops', ...(ops.account && { id: ops.account }) };
  const tripwires = tripwireStacks(config, ops);
  const linked = linkedRegions(config, ops);
  const forwarding = forwardingRegions(config, ops);
  const steps: PlanStep[] = [];

  // Only the OpsStack has assets (the function bundles), and only the tripwire stacks have templates larger than the
  // 51,200 bytes CloudFormation takes in a request: both go through the bootstrap bucket of their Region.
  const bootstrapRegions = [...new Set([ops.region, ...tripwires.map((stack) => stack.region)])];
  for (const region of bootstrapRegions) {
    steps.push({
      title: `Bootstrap the ops account${region ? ` in ${region}` : ''}`,
      account: opsAccount,
      profile: OPS_PROFILE,
      ...(region && { region }),
      commands: [
        `npx cdk bootstrap aws://${ops.account ?? 'OPS_ACCOUNT_ID'}/${region ?? 'REGION'} ${context} --profile ${OPS_PROFILE}`,
      ],
      checks: [stackStatus('CDKToolkit', region, OPS_PROFILE)],
      stacks: [],
    });
  }

  steps.push({
    title: 'Deploy the OpsStack alone: it reads no other account’s metrics, so nothing it creates waits for a link',
    account: opsAccount,
    profile: OPS_PROFILE,
    ...(ops.region && { region: ops.region }),
    commands: [`npx cdk deploy ${OPS_STACK} ${context} --profile ${OPS_PROFILE}`],
    checks: [
      stackStatus(OPS_STACK, ops.region, OPS_PROFILE),
      ...(linked.some((region) => region.isOpsRegion && region.sinkStack) ? ['its outputs include SinkArn'] : []),
    ],
    stacks: [{ stack: OPS_STACK, ...(ops.region && { region: ops.region }) }],
  });

  for (const region of linked.filter((r) => !r.isOpsRegion && r.sinkStack)) {
    const sink = region.sinkStack as string;
    steps.push({
      title: `Deploy the ops account's sink in ${region.region}`,
      account: opsAccount,
      profile: OPS_PROFILE,
      region: region.region,
      commands: [`npx cdk deploy ${sink} ${context} --profile ${OPS_PROFILE}`],
      checks: [stackStatus(sink, region.region, OPS_PROFILE), 'its outputs include SinkArn'],
      stacks: [{ stack: sink, region: region.region }],
    });
  }

  for (const region of forwarding) {
    steps.push({
      title: `Forward ${[region.tripwires && 'tripwire state changes', region.opsAccountNodes && "the ops account's node events"].filter(Boolean).join(' and ')} of ${region.region} to the ops Region`,
      account: opsAccount,
      profile: OPS_PROFILE,
      region: region.region,
      commands: [`npx cdk deploy ${region.stackName} ${context} --profile ${OPS_PROFILE}`],
      checks: [
        stackStatus(region.stackName, region.region, OPS_PROFILE),
        `aws events list-rules --name-prefix ${region.stackName}${regionFlag(region.region)} --profile ${OPS_PROFILE} lists its rules, each ENABLED`,
      ],
      stacks: [{ stack: region.stackName, region: region.region }],
    });
  }

  const readers = new Set(sharingRoleAccounts(config, ops));
  const workloadAccounts = [...new Set(linked.flatMap((region) => region.accounts))].sort();
  for (const account of workloadAccounts) {
    const profile = workloadProfile(account);
    const regions = linked.filter((region) => region.accounts.includes(account));
    steps.push({
      title: `Link workload account ${account}${readers.has(account) ? ' and create its sharing role' : ''}`,
      account: { kind: 'workload', id: account },
      profile,
      commands: [
        ...regions.map((region) => {
          const sinkArn = region.existingSink
            ? ''
            : ` -c sinkArn=${stackOutput(region.sinkStack as string, 'SinkArn', region.region)}`;
          return `npx cdk deploy ${region.sourceStack} ${context}${sinkArn} --profile ${profile}`;
        }),
        ...(readers.has(account) ? [`npx cdk deploy ${SHARING_ROLE_STACK} ${context} --profile ${profile}`] : []),
      ],
      checks: [
        ...regions.map(
          (region) =>
            `aws oam list-attached-links --sink-identifier ${region.existingSink ?? stackOutput(region.sinkStack as string, 'SinkArn', region.region)} --region ${region.region} --profile ${OPS_PROFILE} lists account ${account}`,
        ),
        ...(readers.has(account)
          ? [`aws iam get-role --role-name CloudWatch-CrossAccountSharingRole --profile ${profile} finds the role`]
          : []),
      ],
      stacks: [
        ...regions.map((region) => ({ stack: region.sourceStack, region: region.region, links: account })),
        ...(readers.has(account) ? [{ stack: SHARING_ROLE_STACK, ...(ops.region && { region: ops.region }) }] : []),
      ],
    });
  }

  if (readers.size > 0) {
    steps.push({
      title: 'Create the ops account’s CloudWatch cross-account service-linked role (once per account)',
      account: opsAccount,
      profile: OPS_PROFILE,
      commands: [
        `aws iam create-service-linked-role --aws-service-name cloudwatch-crossaccount.amazonaws.com --profile ${OPS_PROFILE}`,
      ],
      checks: [
        `aws iam get-role --role-name ${CROSS_ACCOUNT_SERVICE_LINKED_ROLE} --profile ${OPS_PROFILE} finds the role (an InvalidInput error "has been taken" from the create means it already exists)`,
      ],
      stacks: [],
    });
  }

  const byRegion = new Map<string | undefined, typeof tripwires>();
  for (const stack of tripwires) byRegion.set(stack.region, [...(byRegion.get(stack.region) ?? []), stack]);
  for (const [region, stacks] of byRegion) {
    const alarms = stacks.reduce((sum, stack) => sum + stack.clusters.length, 0);
    steps.push({
      title: `Deploy the tripwire alarms${region ? ` of ${region}` : ''}: ${alarms} clusters in ${stacks.length} stack(s), last, as they read the linked accounts' metrics`,
      account: opsAccount,
      profile: OPS_PROFILE,
      ...(region && { region }),
      commands: [
        `npx cdk deploy ${stacks.map((stack) => stack.stackName).join(' ')} ${context} --profile ${OPS_PROFILE} --concurrency 4`,
      ],
      checks: [
        `aws cloudwatch describe-alarms --alarm-name-prefix ${OPS_STACK}-tripwire-${regionFlag(region)} --profile ${OPS_PROFILE} --query "length(MetricAlarms)" shows ${alarms}`,
      ],
      stacks: stacks.map((stack) => ({
        stack: stack.stackName,
        ...(stack.region && { region: stack.region }),
        readsAccounts: stack.readsAccounts,
      })),
    });
  }

  steps.push({
    title: "Prove that the pipeline's own alarms reach the encrypted paging topic",
    account: opsAccount,
    profile: OPS_PROFILE,
    ...(ops.region && { region: ops.region }),
    commands: [
      `aws cloudwatch set-alarm-state --alarm-name ${SMOKE_TEST_ALARM} --state-value ALARM --state-reason "sentinel deploy-plan: smoke test of the paging topic"${regionFlag(ops.region)} --profile ${OPS_PROFILE}`,
    ],
    checks: [
      `aws cloudwatch describe-alarm-history --alarm-name ${SMOKE_TEST_ALARM} --history-item-type Action --max-items 1${regionFlag(ops.region)} --profile ${OPS_PROFILE} says "Successfully executed action arn:...:${OPS_STACK}-paging" (a "Failed to execute action" names a key or topic policy that refuses CloudWatch)`,
      'every paging subscriber without a clusters filter receives the alarm; the alarm returns to OK at its next evaluation',
    ],
    stacks: [],
  });
  return steps;
}

/**
 * Every step of a teardown, in the order AWS accepts: the tripwire alarms first (nothing reads the workload accounts'
 * metrics afterwards), then the workload accounts' links and roles (a sink with links cannot be deleted), then the ops
 * account's other Regions, and the OpsStack last. The table and the key outlive the OpsStack on purpose.
 */
export function teardownPlan(config: DeploymentConfig, configFile: string, credentials: OpsPlacement = {}): PlanStep[] {
  const deployed = deployPlan(config, configFile, credentials).filter((step) => step.stacks.length > 0);
  const ops = opsPlacement(config, credentials);
  const context = `-c config=${configFile}`;
  const destroy = (step: PlanStep): PlanStep => ({
    ...step,
    title: `Destroy: ${step.stacks.map((s) => s.stack).join(', ')}`,
    commands: [
      `npx cdk destroy ${step.stacks.map((s) => s.stack).join(' ')} ${context} --force --profile ${step.profile}`,
    ],
    checks: step.stacks.map(
      (s) =>
        `aws cloudformation describe-stacks --stack-name ${s.stack}${regionFlag(s.region)} --profile ${step.profile} answers "does not exist"`,
    ),
  });
  const isOpsStack = (step: PlanStep) => step.stacks.some((s) => s.stack === OPS_STACK);
  const steps = [...deployed.filter((step) => !isOpsStack(step))].reverse().map(destroy);
  const opsStep = deployed.find(isOpsStack);
  if (opsStep) {
    steps.push({
      ...destroy(opsStep),
      checks: [
        ...destroy(opsStep).checks,
        `the table (TableName output) and the key are retained: they keep billing, and a new OpsStack starts with a new, empty table. To delete them: aws dynamodb update-table --table-name TABLE --no-deletion-protection-enabled${regionFlag(ops.region)} --profile ${OPS_PROFILE}, then aws dynamodb delete-table --table-name TABLE, and aws kms schedule-key-deletion --key-id KEY --pending-window-in-days 30`,
      ],
    });
  }
  return steps;
}

/** The plan as the command prints it: numbered steps, each with who runs it, its commands and its checks. */
export function renderPlan(steps: readonly PlanStep[]): string {
  return steps
    .map((step, index) => {
      const who =
        step.account.kind === 'ops'
          ? `ops account${step.account.id ? ` ${step.account.id}` : ''}`
          : `workload account ${step.account.id}`;
      return [
        `${index + 1}. ${step.title}`,
        `   as: ${who}, profile ${step.profile}${step.region ? `, Region ${step.region}` : ''}`,
        ...step.commands.map((command) => `   $ ${command}`),
        ...step.checks.map((check) => `   check: ${check}`),
      ].join('\n');
    })
    .join('\n\n');
}
