import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { DefaultStackSynthesizer, Duration, LegacyStackSynthesizer, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { DeadLetterQueue } from '../../infra/dead-letter-queue.ts';
import { MetricsSink } from '../../infra/metrics-sink.ts';
import { NotificationTopics } from '../../infra/notification-topics.ts';
import { PagingDelivery } from '../../infra/paging-delivery.ts';
import { SelfMonitoring } from '../../infra/self-monitoring.ts';
import { SentinelDashboard } from '../../infra/sentinel-dashboard.ts';
import { SentinelFunction } from '../../infra/sentinel-function.ts';
import { SentinelKey } from '../../infra/sentinel-key.ts';
import { SentinelSchedule } from '../../infra/sentinel-schedule.ts';
import { SourceAccountStack } from '../../infra/source-account-stack.ts';
import { Tripwires } from '../../infra/tripwires.ts';
import { readConfigFile } from '../../io/input-files.ts';
import { pagingIntegrations } from '../../shared/delivery/paging-integrations.ts';
import { newApp, SINK_ARN, TEST_CONFIG, TEST_ENV } from '../../support/synth-sentinel-app.ts';

/**
 * One snapshot per construct, each built alone in a bare stack (as cdk-monitoring-constructs tests its constructs), so
 * that a change shows up in the snapshot of the construct that made it, small enough to review. What a construct
 * needs from outside (a key, a queue, a topic, a function) is a plain CDK stand-in, so that it adds a resource or two,
 * not another construct's template. The OpsStack's wiring is asserted in ops-stack.test.ts.
 */

/** Asset hashes change with every edit of the functions; the snapshots are about the infrastructure around them. */
const ASSET_HASH = /[a-f0-9]{64}/g;

const DEPLOYMENT = 'Stack';
const ALARM_NAME_PREFIX = `${DEPLOYMENT}-`;
const { config } = readConfigFile(TEST_CONFIG);

let outdir: string;

beforeAll(() => {
  outdir = mkdtempSync(path.join(tmpdir(), 'sentinel-constructs-'));
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

function bareStack(): Stack {
  return new Stack(newApp({ bundle: false, parent: outdir }), DEPLOYMENT, {
    env: TEST_ENV,
    // No bootstrap version parameter and rule: the same 40 lines in every snapshot say nothing about its construct.
    synthesizer: new DefaultStackSynthesizer({ generateBootstrapVersionRule: false }),
  });
}

function scrubbedTemplate(stack: Stack): unknown {
  return JSON.parse(JSON.stringify(Template.fromStack(stack).toJSON()).replace(ASSET_HASH, '[ASSET HASH]'));
}

const key = (stack: Stack) => new kms.Key(stack, 'Key');
const queue = (stack: Stack, id = 'DeadLetters') => new sqs.Queue(stack, id);
const topic = (stack: Stack) => new sns.Topic(stack, 'Topic');
const lambdaFunction = (stack: Stack) =>
  new lambda.Function(stack, 'Function', {
    runtime: lambda.Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('export const handler = async () => {};'),
  });
/** SelfMonitoring and SentinelSchedule read only the function of a SentinelFunction. */
const sentinelFunction = (stack: Stack) => ({ function: lambdaFunction(stack) }) as unknown as SentinelFunction;

/** Each construct under test, built into a bare stack with stand-ins for what it is given. */
const constructs: Record<string, (stack: Stack) => void> = {
  SentinelKey: (stack) =>
    new SentinelKey(stack, 'Key', {
      topicNames: [`${DEPLOYMENT}-paging`, `${DEPLOYMENT}-notice`],
    }),
  DeadLetterQueue: (stack) => new DeadLetterQueue(stack, 'DeadLetters', { key: key(stack) }),
  NotificationTopics: (stack) =>
    new NotificationTopics(stack, 'Topics', {
      config,
      topicNames: { paging: `${DEPLOYMENT}-paging`, notice: `${DEPLOYMENT}-notice`, digest: `${DEPLOYMENT}-digest` },
      alarmNamePrefix: ALARM_NAME_PREFIX,
      key: key(stack),
      deadLetterQueue: queue(stack),
    }),
  SentinelFunction: (stack) =>
    new SentinelFunction(stack, 'Poller', {
      entry: 'functions/poller/handler.ts',
      description: 'the function under test',
      memorySize: 256,
      timeout: Duration.seconds(50),
      configFile: TEST_CONFIG,
      key: key(stack),
      deadLetterQueue: queue(stack),
      retryAttempts: 2,
      maxEventAge: Duration.minutes(5),
    }),
  SentinelSchedule: (stack) =>
    new SentinelSchedule(stack, 'PollSchedule', {
      description: 'the schedule under test',
      schedule: scheduler.ScheduleExpression.rate(Duration.minutes(1)),
      target: sentinelFunction(stack),
      input: { kind: 'poll', scheduledTime: scheduler.ContextAttribute.scheduledTime },
      retryAttempts: 3,
      maxEventAge: Duration.minutes(1),
      deadLetterQueue: queue(stack),
      key: key(stack),
    }),
  SelfMonitoring: (stack) =>
    new SelfMonitoring(stack, 'SelfMonitoring', {
      deployment: DEPLOYMENT,
      alarmNamePrefix: ALARM_NAME_PREFIX,
      poller: sentinelFunction(stack),
      pollerTimeout: Duration.seconds(50),
      deadLetterQueue: queue(stack),
      earlyWarnings: true,
      topic: topic(stack),
    }),
  Tripwires: (stack) =>
    new Tripwires(stack, 'Tripwires', {
      config,
      deployment: DEPLOYMENT,
      clusters: config.clusters,
    }),
  SentinelDashboard: (stack) =>
    new SentinelDashboard(stack, 'Dashboard', {
      dashboardName: DEPLOYMENT,
      config,
      deployment: DEPLOYMENT,
      poller: lambdaFunction(stack),
      alarms: [
        new cloudwatch.Alarm(stack, 'Alarm', {
          metric: topic(stack).metricNumberOfMessagesPublished(),
          threshold: 1,
          evaluationPeriods: 1,
        }),
      ],
    }),
  PagingDelivery: (stack) =>
    new PagingDelivery(stack, 'PagingDelivery', {
      integrations: pagingIntegrations(config),
      topic: topic(stack),
      noticeTopic: new sns.Topic(stack, 'NoticeTopic'),
      table: new dynamodb.Table(stack, 'Table', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } }),
      key: key(stack),
      deadLetterQueue: queue(stack),
      configFile: TEST_CONFIG,
    }),
  MetricsSink: (stack) =>
    new MetricsSink(stack, 'MetricsSink', {
      sinkName: `${DEPLOYMENT}-metrics`,
      accounts: ['222233334444', '555566667777'],
    }),
};

describe.each(Object.entries(constructs))('%s', (_, build) => {
  it('synthesizes the template last reviewed', () => {
    const stack = bareStack();

    build(stack);

    expect(scrubbedTemplate(stack)).toMatchSnapshot();
  });
});

describe('SourceAccountStack', () => {
  it('synthesizes the template last reviewed', () => {
    const stack = new SourceAccountStack(newApp({ bundle: false, parent: outdir }), 'SourceAccountStack', {
      namespaces: ['AWS/EKS', 'ContainerInsights'],
      sinkArn: SINK_ARN,
      synthesizer: new LegacyStackSynthesizer(),
    });

    expect(scrubbedTemplate(stack)).toMatchSnapshot();
  });
});
