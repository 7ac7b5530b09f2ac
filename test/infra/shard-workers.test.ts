import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { SQS_SHARD_MESSAGE } from '../../aws/sqs/shard-message.ts';
import { DeadLetterQueue } from '../../infra/dead-letter-queue.ts';
import { FUNCTION_ACCESS } from '../../infra/function-access.ts';
import { SentinelFunction } from '../../infra/sentinel-function.ts';
import { ShardWorkers } from '../../infra/shard-workers.ts';
import { SHARD_SIZE, SHARD_WORKERS } from '../../shared/pipeline/shards.ts';
import { newApp, TEST_CONFIG, TEST_ENV } from '../../support/synth-sentinel-app.ts';

/*
 * The shard queue and its workers, built beside a poller in a stack of their own: the test configurations are small
 * fleets, whose OpsStack has no fan-out (ops-stack.ts builds it only past one shard), so cdk-nag and the wiring are
 * checked here.
 */

let outdir: string;
let app: App;
let stack: Stack;
let template: Template;

beforeAll(() => {
  outdir = mkdtempSync(path.join(tmpdir(), 'sentinel-shards-'));
  app = newApp({ bundle: false, parent: outdir });
  stack = new Stack(app, 'Shards', { env: TEST_ENV });
  const key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
  const deadLetterQueue = new DeadLetterQueue(stack, 'DeadLetters', { key });
  const poller = new SentinelFunction(stack, 'Poller', {
    entry: 'functions/poller/handler.ts',
    description: 'poller',
    memorySize: 512,
    timeout: Duration.seconds(50),
    configFile: TEST_CONFIG,
    key,
    deadLetterQueue,
    retryAttempts: 2,
    maxEventAge: Duration.minutes(5),
  });
  const table = new dynamodb.Table(stack, 'Table', {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
    encryptionKey: key,
  });
  new ShardWorkers(stack, 'ShardWorkers', { poller, table, key, deadLetterQueue, configFile: TEST_CONFIG });
  template = Template.fromStack(stack);
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

const logicalId = (type: string, prefix: string) =>
  Object.keys(template.findResources(type)).find((id) => id.startsWith(prefix)) ?? '';

interface Statement {
  readonly Action: string | string[];
  readonly Resource: unknown;
}

/** Every statement of the policies attached to the role whose logical id starts with `rolePrefix`. */
function statementsOf(rolePrefix: string): Statement[] {
  const role = logicalId('AWS::IAM::Role', rolePrefix);
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => policy.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

describe('the shard workers', () => {
  it('invoke the worker one shard at a time, at most SHARD_WORKERS at once', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: SHARD_WORKERS },
      EventSourceArn: { 'Fn::GetAtt': [logicalId('AWS::SQS::Queue', 'ShardWorkersQueue'), 'Arn'] },
    });
  });

  it('encrypt the shard queue with the deployment key and move what keeps failing to the dead letters', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      KmsMasterKeyId: { 'Fn::GetAtt': [logicalId('AWS::KMS::Key', 'Key'), 'Arn'] },
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [logicalId('AWS::SQS::Queue', 'DeadLetters'), 'Arn'] },
        maxReceiveCount: 2,
      },
    });
  });

  it('hold the shard queue to the message size the poller deals its shards under', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      MaximumMessageSize: SQS_SHARD_MESSAGE.maxMessageBytes,
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 2 }),
    });
  });

  it('update the worker before the poller, so that no worker is sent a message of a release it does not know', () => {
    const poller = template.findResources('AWS::Lambda::Function')[logicalId('AWS::Lambda::Function', 'Poller')];
    expect(poller?.DependsOn).toEqual(
      expect.arrayContaining([logicalId('AWS::Lambda::Function', 'ShardWorkersWorker')]),
    );
  });

  it('let the poller send to the shard queue, and name it and the shard size in its environment', () => {
    const queue = logicalId('AWS::SQS::Queue', 'ShardWorkersQueue');
    const sends = statementsOf('PollerRole')
      .filter((statement) => [statement.Action].flat().includes('sqs:SendMessage'))
      .flatMap((statement) => [statement.Resource].flat());

    expect(sends).toContainEqual({ 'Fn::GetAtt': [queue, 'Arn'] });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'poller',
      Environment: {
        Variables: Match.objectLike({
          SENTINEL_SHARD_QUEUE_URL: { Ref: queue },
          SENTINEL_SHARD_SIZE: String(SHARD_SIZE),
        }),
      },
    });
  });

  it("grant the worker the table actions of its adapters and CloudWatch's metric reads", () => {
    const actions = statementsOf('ShardWorkersWorkerRole').flatMap((statement) => [statement.Action].flat());
    const access = FUNCTION_ACCESS.shardWorker;

    expect(actions).toEqual(expect.arrayContaining([...access.table, ...access.metrics]));
    expect(actions.filter((a: string) => /^(sns|secretsmanager|sts):/.test(a))).toEqual([]);
  });

  it.each([
    ['AwsSolutions', () => new AwsSolutionsChecks()],
    ['Serverless', () => new ServerlessChecks()],
  ])('leave the cdk-nag %s pack nothing unacknowledged', (_, pack) => {
    const { violations } = pack().validateScope(app);

    expect(violations).toEqual([]);
  });
});
