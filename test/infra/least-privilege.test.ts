import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { FUNCTION_ACCESS } from '../../infra/function-access.ts';
import { DEAD_LETTER_ACTIONS, KEY_USE, PROJECT_ROOT, type SentinelFunction } from '../../infra/sentinel-function.ts';
import { type SynthesizedSentinelApp, synthSentinelApp } from '../../support/synth-sentinel-app.ts';

/**
 * Least privilege, kept: every aws/ adapter declares the IAM actions of the requests it sends (IAM_ACTIONS), each
 * function's role grants the union of those of the adapters its handler reaches and nothing else, and nothing is
 * granted that no code calls. An SDK call added without its action, or a grant without a call, fails here.
 */

/** The IAM action of each SDK command (and OAM operation) the adapters send. A new one must be added here. */
const COMMAND_ACTIONS: Readonly<Record<string, string>> = {
  // @aws-sdk/lib-dynamodb and @aws-sdk/client-dynamodb
  GetCommand: 'dynamodb:GetItem',
  GetItemCommand: 'dynamodb:GetItem',
  PutCommand: 'dynamodb:PutItem',
  PutItemCommand: 'dynamodb:PutItem',
  UpdateCommand: 'dynamodb:UpdateItem',
  UpdateItemCommand: 'dynamodb:UpdateItem',
  DeleteCommand: 'dynamodb:DeleteItem',
  DeleteItemCommand: 'dynamodb:DeleteItem',
  QueryCommand: 'dynamodb:Query',
  ScanCommand: 'dynamodb:Scan',
  BatchGetCommand: 'dynamodb:BatchGetItem',
  BatchWriteCommand: 'dynamodb:BatchWriteItem',
  TransactWriteCommand: 'dynamodb:PutItem',
  // @aws-sdk/client-cloudwatch
  GetMetricDataCommand: 'cloudwatch:GetMetricData',
  ListMetricsCommand: 'cloudwatch:ListMetrics',
  DescribeAlarmsCommand: 'cloudwatch:DescribeAlarms',
  PutMetricDataCommand: 'cloudwatch:PutMetricData',
  // @aws-sdk/client-sns
  PublishCommand: 'sns:Publish',
  // @aws-sdk/client-sts
  GetCallerIdentityCommand: 'sts:GetCallerIdentity',
  // @aws-sdk/client-sqs
  SendMessageBatchCommand: 'sqs:SendMessage',
  // @aws-lambda-powertools/parameters: SecretsProvider.get sends GetSecretValue
  SecretsProvider: 'secretsmanager:GetSecretValue',
  GetSecretValueCommand: 'secretsmanager:GetSecretValue',
  // @aws-lambda-powertools/parameters: SSMProvider.get sends GetParameter; @aws-sdk/client-ssm
  SSMProvider: 'ssm:GetParameter',
  GetParameterCommand: 'ssm:GetParameter',
  // @aws-sdk/client-ec2
  DescribeInstancesCommand: 'ec2:DescribeInstances',
  // @aws-sdk/client-eks (the doctor's node facts)
  DescribeClusterCommand: 'eks:DescribeCluster',
  ListNodegroupsCommand: 'eks:ListNodegroups',
  ListFargateProfilesCommand: 'eks:ListFargateProfiles',
  AssumeRoleCommand: 'sts:AssumeRole',
};

const AWS_DIR = path.join(PROJECT_ROOT, 'aws');
/** Every module under aws/, in its folders too (aws/dynamodb/, aws/vendors/, ...). */
const adapters = readdirSync(AWS_DIR, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => path.join(AWS_DIR, file));

/** The IAM actions a module's source sends: `new XCommand(` for the SDK, `sendOam('Operation'` for OAM. */
function actionsSentBy(file: string): { actions: string[]; unmapped: string[] } {
  const source = readFileSync(file, 'utf8');
  const commands = [...source.matchAll(/new (\w+Command|SecretsProvider|SSMProvider)\(/g)].map(
    ([, name]) => name ?? '',
  );
  const oam = [...source.matchAll(/sendOam(?:<[^>]*>)?\(\s*'(\w+)'/g)].map(([, operation]) => `oam:${operation}`);
  return {
    actions: [...new Set([...commands.flatMap((c) => COMMAND_ACTIONS[c] ?? []), ...oam])].sort(),
    unmapped: commands.filter((c) => COMMAND_ACTIONS[c] === undefined),
  };
}

async function declaredBy(file: string): Promise<string[]> {
  const module = (await import(pathToFileURL(file).href)) as { IAM_ACTIONS?: readonly string[] };
  return [...(module.IAM_ACTIONS ?? [])].sort();
}

/** Every module a file imports at run time (type-only imports are erased), transitively, itself included. */
function runtimeImports(entry: string, seen = new Set<string>()): Set<string> {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const source = readFileSync(entry, 'utf8');
  for (const [, typeOnly, specifier] of source.matchAll(
    /^(?:import|export)\s+(type\s+)?[\s\S]*?\bfrom\s+'([^']+)';/gm,
  )) {
    if (typeOnly || !specifier?.startsWith('.')) continue;
    runtimeImports(path.resolve(path.dirname(entry), specifier), seen);
  }
  return seen;
}

/** The union of IAM_ACTIONS over the aws/ adapters a handler reaches. */
async function actionsOfHandler(handler: string): Promise<string[]> {
  const reached = [...runtimeImports(path.join(PROJECT_ROOT, handler))].filter((file) => file.startsWith(AWS_DIR));
  const declared = await Promise.all(reached.map(declaredBy));
  return [...new Set(declared.flat())].sort();
}

describe.each(adapters.map((file) => [path.relative(PROJECT_ROOT, file), file]))('the adapter %s', (_, file) => {
  it('declares in IAM_ACTIONS exactly the actions of the requests it sends', async () => {
    const sent = actionsSentBy(file);

    expect({ declared: await declaredBy(file), unmapped: sent.unmapped }).toEqual({
      declared: sent.actions,
      unmapped: [],
    });
  });
});

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
}

const FUNCTIONS = [
  ['poller', 'functions/poller/handler.ts'],
  ['digest', 'functions/digest/handler.ts'],
  ['tripwire', 'functions/tripwire/handler.ts'],
  ['nodeChurn', 'functions/node-churn/handler.ts'],
] as const;

let synth: SynthesizedSentinelApp;
let template: Template;

/** The test configuration keeps the default, a customer managed key of the deployment. */
function deploymentKey() {
  if (!synth.ops.key) throw new Error('the test configuration has no key of its own');
  return synth.ops.key;
}

beforeAll(() => {
  synth = synthSentinelApp({ bundle: false });
  template = Template.fromStack(synth.ops);
});

afterAll(() => synth.dispose());

const ref = (construct: { node: { defaultChild?: unknown } }) =>
  Stack.of(synth.ops).resolve((construct.node.defaultChild as CfnElement).logicalId) as string;

/** Every statement of every policy attached to the function's role, as [action, resource] pairs. */
function grantsOf(fn: SentinelFunction): [string, string][] {
  const role = ref(fn.role);
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => policy.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[])
    .flatMap((statement) =>
      [statement.Action]
        .flat()
        .flatMap((action) =>
          [statement.Resource].flat().map((resource): [string, string] => [action, JSON.stringify(resource)]),
        ),
    );
}

describe.each(FUNCTIONS)('the %s role', (name, handler) => {
  const fn = () => synth.ops[name];
  const access = FUNCTION_ACCESS[name];
  const arn = (logicalId: string) => JSON.stringify({ 'Fn::GetAtt': [logicalId, 'Arn'] });

  it('is given, in infra/function-access.ts, exactly what the adapters its handler reaches send', async () => {
    expect(
      [
        ...access.table,
        ...access.topics,
        ...access.metrics,
        ...access.secrets,
        ...access.parameters,
        ...access.instances,
        ...access.queues,
      ]
        .filter((action, index, all) => all.indexOf(action) === index)
        .sort(),
    ).toEqual(await actionsOfHandler(handler));
  });

  it('grants those data actions and no other, on the table, its topics and metrics alone', async () => {
    const table = ref(synth.ops.table);
    const { paging, notice, digest } = synth.ops.topics;
    const topics = { poller: [paging, notice], digest: [digest], tripwire: [], nodeChurn: [] }[name].map((topic) =>
      JSON.stringify({ Ref: ref(topic) }),
    );
    const data = grantsOf(fn()).filter(([action]) => /^(dynamodb|sns|cloudwatch|ec2|sts):/.test(action));
    const index = JSON.stringify({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [table, 'Arn'] }, '/index/*']] });

    // The shard queue's sqs:SendMessage is granted only where the queue exists, for a fleet larger than one shard.
    expect([...new Set(data.map(([action]) => action))].sort()).toEqual(
      (await actionsOfHandler(handler)).filter((action) => /^(dynamodb|sns|cloudwatch|ec2|sts):/.test(action)),
    );
    // The synthesized app links one workload account (of the example configuration) in the ops Region.
    const lookupRoles = data.filter(([action]) => action.startsWith('sts:')).map(([, resource]) => resource);
    const allowed = (action: string) =>
      action.startsWith('dynamodb:')
        ? [arn(table), index]
        : action.startsWith('sns:')
          ? topics
          : action.startsWith('sts:')
            ? lookupRoles.filter((role) => role.includes(':role/k8s-incident-sentinel-node-lookup-'))
            : ['"*"'];
    expect(data.filter(([action, resource]) => !allowed(action).includes(resource))).toEqual([]);
    const onIndex = data.filter(([, resource]) => resource === index).map(([action]) => action);
    expect(onIndex).toEqual(access.table.includes('dynamodb:Query') ? [...access.table] : []);
  });

  it('uses the key only as DynamoDB, SNS and SQS require of a caller', () => {
    const key = grantsOf(fn()).filter(([action]) => action.startsWith('kms:'));
    const expected = new Set<string>([
      ...KEY_USE.queue,
      ...(access.table.length > 0 ? KEY_USE.table : []),
      ...(access.topics.length > 0 ? KEY_USE.topic : []),
    ]);

    expect(key.map(([action]) => action).sort()).toEqual([...expected].sort());
    expect(new Set(key.map(([, resource]) => resource))).toEqual(new Set([arn(ref(deploymentKey()))]));
  });

  it('writes only its own logs and sends only to the dead-letter queue', () => {
    const rest = grantsOf(fn()).filter(([action]) => !/^(dynamodb|sns|cloudwatch|ec2|sts|kms):/.test(action));
    const queue = Object.keys(template.findResources('AWS::SQS::Queue')).find((id) => id.startsWith('DeadLetters'));

    expect(rest.sort()).toEqual(
      [
        ['logs:CreateLogStream', arn(ref(fn().logGroup))],
        ['logs:PutLogEvents', arn(ref(fn().logGroup))],
        ...DEAD_LETTER_ACTIONS.map((action): [string, string] => [action, arn(queue ?? '')]),
      ].sort(),
    );
  });
});

describe('the delivery role', () => {
  const delivery = () => {
    if (!synth.ops.delivery) throw new Error('the test configuration names PagerDuty and Opsgenie subscribers');
    return synth.ops.delivery;
  };
  const arn = (construct: { node: { defaultChild?: unknown } }) =>
    JSON.stringify({ 'Fn::GetAtt': [ref(construct), 'Arn'] });
  const access = FUNCTION_ACCESS.delivery;

  it('is given, in infra/function-access.ts, exactly what the adapters its handler reaches send', async () => {
    expect([...access.table, ...access.secrets, ...access.parameters].sort()).toEqual(
      await actionsOfHandler('functions/delivery/handler.ts'),
    );
  });

  it('reads and writes the table alone, and reads only the secrets the configuration names', () => {
    const grants = grantsOf(delivery().function);
    const table = grants.filter(([action]) => action.startsWith('dynamodb:'));
    const secrets = grants.filter(([action]) => action.startsWith('secretsmanager:'));

    expect(table.map(([action]) => action).sort()).toEqual([...access.table]);
    expect(new Set(table.map(([, resource]) => resource))).toEqual(new Set([arn(synth.ops.table)]));
    // The PagerDuty and Opsgenie keys and the URL of the https subscriber that keeps it in a secret.
    expect(secrets.map(([action]) => action)).toEqual([
      'secretsmanager:GetSecretValue',
      'secretsmanager:GetSecretValue',
      'secretsmanager:GetSecretValue',
    ]);
    expect(secrets.map(([, resource]) => resource).join(' ')).not.toMatch(/secret:\*|secret:"/);
    // The test configuration names no parameter: no Parameter Store grant either (secret-endpoints.test.ts has one).
    expect(grants.filter(([action]) => action.startsWith('ssm:'))).toEqual([]);
  });

  it('consumes its own queue, sends only to its dead-letter queue, and uses the key for nothing else', () => {
    const grants = grantsOf(delivery().function);
    const sqs = grants.filter(([action]) => action.startsWith('sqs:'));
    const consumed = sqs.filter(([action]) => action !== 'sqs:SendMessage');
    const key = grants.filter(([action]) => action.startsWith('kms:'));

    expect(new Set(consumed.map(([, resource]) => resource))).toEqual(new Set([arn(delivery().queue)]));
    expect(sqs.filter(([action]) => action === 'sqs:SendMessage')).toEqual([
      ['sqs:SendMessage', arn(synth.ops.deadLetterQueue)],
    ]);
    expect([...new Set(key.map(([action]) => action))].sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
    expect(new Set(key.map(([, resource]) => resource))).toEqual(new Set([arn(deploymentKey())]));
    expect(grants.filter(([action]) => /^(sns|cloudwatch|sts):/.test(action))).toEqual([]);
  });
});
