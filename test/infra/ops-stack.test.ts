import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { PIPELINE_ALARMS } from '../../shared/delivery/pipeline-alarm.ts';
import { DEPLOYMENT_DIMENSION, PIPELINE_METRICS, PIPELINE_NAMESPACE } from '../../shared/pipeline/pipeline-metrics.ts';
import { alarmInAlarm } from '../../shared/pipeline/tripwire-alarm.ts';
import {
  EXAMPLE_CONFIG,
  fixture,
  type SynthesizedSentinelApp,
  synthSentinelApp,
  TEST_CONFIG,
} from '../../support/synth-sentinel-app.ts';

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
  readonly Principal?: unknown;
  readonly Condition?: unknown;
}

const actionsOf = (statement: Statement) => [statement.Action].flat();
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

let synth: SynthesizedSentinelApp;
let template: Template;
let ref: (construct: { node: { defaultChild?: unknown } }) => { Ref: string };
let arnOf: (construct: { node: { defaultChild?: unknown } }) => { 'Fn::GetAtt': [string, 'Arn'] };

/** Every IAM policy statement of the stack, with the logical id of the policy it belongs to. */
function policyStatements(): { policy: string; statement: Statement }[] {
  return Object.entries(template.findResources('AWS::IAM::Policy')).flatMap(([policy, resource]) =>
    (resource.Properties.PolicyDocument.Statement as Statement[]).map((statement) => ({ policy, statement })),
  );
}

function logicalIdOf(construct: { node: { defaultChild?: unknown } }): string {
  return Stack.of(synth.ops).resolve((construct.node.defaultChild as CfnElement).logicalId);
}

function roleOfFunction(name: 'Poller' | 'Digest'): string {
  const fn = template.findResources('AWS::Lambda::Function', {
    Properties: { Description: Match.stringLikeRegexp(name === 'Poller' ? 'poller' : 'digest') },
  });
  const [resource] = Object.values(fn);
  return resource?.Properties.Role['Fn::GetAtt'][0];
}

/** The dashboard body as JSON, with every CloudFormation reference inside it replaced by "REF". */
function dashboardBody(): { widgets: { type: string; properties: Record<string, unknown> }[] } {
  const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  const parts: unknown[] = dashboard?.Properties.DashboardBody['Fn::Join'][1];
  return JSON.parse(parts.map((part) => (typeof part === 'string' ? part : 'REF')).join(''));
}

/** The test configuration keeps the default, a customer managed key of the deployment. */
function deploymentKey() {
  if (!synth.ops.key) throw new Error('the test configuration has no key of its own');
  return synth.ops.key;
}

beforeAll(() => {
  synth = synthSentinelApp();
  template = Template.fromStack(synth.ops);
  ref = (construct) => ({ Ref: logicalIdOf(construct) });
  arnOf = (construct) => ({ 'Fn::GetAtt': [logicalIdOf(construct), 'Arn'] });
});

afterAll(() => synth.dispose());

describe('the functions', () => {
  it('run on nodejs24.x and arm64 without tracing, with source maps and explicit memory and timeout', () => {
    template.resourcePropertiesCountIs(
      'AWS::Lambda::Function',
      {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        TracingConfig: Match.absent(),
        MemorySize: Match.anyValue(),
        Timeout: Match.anyValue(),
        Environment: {
          Variables: Match.objectLike({
            NODE_OPTIONS: '--enable-source-maps',
            SENTINEL_CONFIG_FILE: 'sentinel.config.json',
            SENTINEL_DEPLOYMENT: 'OpsStack',
          }),
        },
      },
      // The poller, the digest, the tripwire, the delivery and node churn.
      5,
    );
  });

  it('carry the validated configuration file next to an ESM handler in their bundles', () => {
    const config = readFileSync(TEST_CONFIG, 'utf8');
    for (const fn of [synth.ops.poller, synth.ops.digest]) {
      const key: string = template.toJSON().Resources[logicalIdOf(fn.function)].Properties.Code.S3Key;
      const bundle = path.join(synth.assembly.directory, `asset.${key.replace('.zip', '')}`);
      expect(readFileSync(path.join(bundle, 'sentinel.config.json'), 'utf8')).toBe(config);
      expect(readFileSync(path.join(bundle, 'index.mjs'), 'utf8')).toMatch(/^import \{ createRequire as /);
    }
  });

  it('write their logs to encrypted log groups with a retention', () => {
    template.resourcePropertiesCountIs(
      'AWS::Logs::LogGroup',
      { RetentionInDays: 30, KmsKeyId: arnOf(deploymentKey()) },
      5,
    );
  });

  it('give the poller the table, the paging and notice topics, and at most two concurrent runs', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('poller'),
      ReservedConcurrentExecutions: 2,
      Timeout: 50,
      Environment: {
        Variables: Match.objectLike({
          SENTINEL_TABLE: ref(synth.ops.table),
          SENTINEL_PAGING_TOPIC_ARN: ref(synth.ops.topics.paging),
          SENTINEL_NOTICE_TOPIC_ARN: ref(synth.ops.topics.notice),
        }),
      },
    });
  });

  it('give the digest the table and the digest topic', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('digest'),
      Environment: {
        Variables: Match.objectLike({
          SENTINEL_TABLE: ref(synth.ops.table),
          SENTINEL_DIGEST_TOPIC_ARN: ref(synth.ops.topics.digest),
        }),
      },
    });
  });

  it('send asynchronous invocations they gave up on to a dead-letter queue', () => {
    template.resourcePropertiesCountIs(
      'AWS::Lambda::EventInvokeConfig',
      {
        MaximumRetryAttempts: 2,
        DestinationConfig: {
          OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeadLetters'), 'Arn'] } },
        },
      },
      4,
    );
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: ref(synth.ops.poller.function),
      MaximumEventAgeInSeconds: 300,
    });
  });
});

describe('the table', () => {
  it('is on-demand, point-in-time recovered, encrypted with the key, expires items and outlives the stack', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: Match.anyValue() },
        DeletionProtectionEnabled: true,
      },
    });
  });

  it('has the byDay index on day and at, projecting all attributes', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byDay',
          KeySchema: [
            { AttributeName: 'day', KeyType: 'HASH' },
            { AttributeName: 'at', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });
});

describe('the key', () => {
  it('rotates and is retained with the table it encrypts', () => {
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Retain', Properties: { EnableKeyRotation: true } });
  });

  it('lets CloudWatch Logs and its topics use it for this account only, and CloudWatch alarms as SNS documents it', () => {
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'logs.eu-west-1.amazonaws.com' },
            Condition: {
              ArnLike: { 'kms:EncryptionContext:aws:logs:arn': 'arn:aws:logs:eu-west-1:111122223333:log-group:*' },
            },
          }),
          {
            Sid: 'CloudWatchAlarmsPublishToEncryptedTopics',
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            Resource: '*',
          },
          Match.objectLike({
            Principal: { Service: 'sns.amazonaws.com' },
            Condition: Match.objectLike({
              ArnEquals: {
                'aws:SourceArn': [
                  'arn:aws:sns:eu-west-1:111122223333:OpsStack-paging',
                  'arn:aws:sns:eu-west-1:111122223333:OpsStack-notice',
                  'arn:aws:sns:eu-west-1:111122223333:OpsStack-digest',
                ],
              },
            }),
          }),
        ]),
      },
    });
  });
});

describe('without a key of its own (encryption.key: aws-managed)', () => {
  let own: SynthesizedSentinelApp;
  let plain: Template;
  beforeAll(() => {
    own = synthSentinelApp({ bundle: false, configFile: fixture('aws-managed-keys.json') });
    plain = Template.fromStack(own.ops);
  });
  afterAll(() => own.dispose());

  it('creates no KMS key and grants no key to anyone', () => {
    plain.resourceCountIs('AWS::KMS::Key', 0);
    expect(JSON.stringify(plain.findResources('AWS::IAM::Policy'))).not.toContain('kms:');
  });

  it("leaves the table, the queues and the logs to their services' own encryption", () => {
    // SSEEnabled false is DynamoDB's AWS owned key: every table is encrypted at rest.
    plain.hasResourceProperties('AWS::DynamoDB::Table', { SSESpecification: { SSEEnabled: false } });
    plain.resourcePropertiesCountIs(
      'AWS::SQS::Queue',
      { SqsManagedSseEnabled: true, KmsMasterKeyId: Match.absent() },
      1,
    );
    plain.resourcePropertiesCountIs('AWS::Logs::LogGroup', { KmsKeyId: Match.absent() }, 4);
  });

  it("encrypts the notice and digest topics with SNS's AWS managed key, and leaves the paging topic, which alarms publish to, unencrypted", () => {
    const topics = Object.values(plain.findResources('AWS::SNS::Topic')).map((t) => [
      t.Properties.TopicName,
      t.Properties.KmsMasterKeyId,
    ]);

    expect(topics).toEqual(
      expect.arrayContaining([
        [expect.stringMatching(/-paging$/), undefined],
        [expect.stringMatching(/-notice$/), 'alias/aws/sns'],
        [expect.stringMatching(/-digest$/), 'alias/aws/sns'],
      ]),
    );
  });
});

describe('the topics', () => {
  it('are encrypted with the deployment key', () => {
    template.resourcePropertiesCountIs('AWS::SNS::Topic', { KmsMasterKeyId: arnOf(deploymentKey()) }, 3);
  });

  it('refuse publishing without TLS', () => {
    for (const topic of [synth.ops.topics.paging, synth.ops.topics.notice, synth.ops.topics.digest]) {
      template.hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [ref(topic)],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'sns:Publish',
              Principal: '*',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    }
  });

  it('let this deployment’s alarms, and no one else’s, publish to the paging topic', () => {
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [ref(synth.ops.topics.paging)],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Condition: {
              StringEquals: { 'aws:SourceAccount': '111122223333' },
              ArnLike: { 'aws:SourceArn': 'arn:aws:cloudwatch:eu-west-1:111122223333:alarm:OpsStack-*' },
            },
          }),
        ]),
      },
    });
  });

  it('leave a secret https endpoint to the delivery function: no SNS subscription holds it, even as a reference', () => {
    const text = JSON.stringify(template.toJSON());
    expect(text).not.toContain('resolve:secretsmanager');
    expect(text).toContain('secret:sentinel/pagerduty-??????');
  });

  it('never put a secret endpoint URL into the template', () => {
    const text = JSON.stringify(template.toJSON());
    expect(text).not.toMatch(/events\.pagerduty\.com|opsgenie\.com|hooks\.slack\.com/);
    const endpoints = Object.values(template.findResources('AWS::SNS::Subscription')).map(
      (subscription) => subscription.Properties.Endpoint,
    );
    expect(endpoints.filter((endpoint) => /^https:/.test(endpoint))).toEqual([
      'https://chat.example.com/hooks/oncall',
      'https://chat.example.com/hooks/platform',
    ]);
  });

  it('filter cluster-limited subscriptions on the cluster attribute, and SMS on the paging topic to pages and resolves', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sms',
      TopicArn: ref(synth.ops.topics.paging),
      // The pipeline's alarms carry no kind: `exists: false` keeps them reaching the phone.
      FilterPolicy: { cluster: ['prod-euw1', '(more clusters)'], kind: ['page', 'resolve', { exists: false }] },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'https',
      TopicArn: ref(synth.ops.topics.notice),
      FilterPolicy: { cluster: ['dev-euw1', 'batch-euw1', '(more clusters)'] },
    });
  });

  it('give every subscriber of the whole topic no filter, so pipeline alarms reach them', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: ref(synth.ops.topics.paging),
      FilterPolicy: Match.absent(),
    });
  });

  it('subscribe the digest recipients by email to the digest topic', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'platform-leads@example.com',
      TopicArn: ref(synth.ops.topics.digest),
    });
  });

  it('move notifications they could not deliver to an encrypted dead-letter queue', () => {
    template.resourcePropertiesCountIs(
      'AWS::SNS::Subscription',
      {
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DeadLetters'), 'Arn'] },
        },
      },
      // The five subscribers SNS delivers to in the test configuration, and the delivery queue.
      6,
    );
  });
});

describe('IAM', () => {
  it('allows sns:Publish only on the project’s three topics, each function on its own', () => {
    const publish = policyStatements().filter(({ statement }) =>
      actionsOf(statement).some((a) => a.startsWith('sns:')),
    );
    const byRole = (role: string) =>
      publish
        .filter(({ policy }) => template.toJSON().Resources[policy].Properties.Roles[0].Ref === role)
        .flatMap(({ statement }) => asList(statement.Resource));
    expect(publish.every(({ statement }) => actionsOf(statement).every((a) => a === 'sns:Publish'))).toBe(true);
    expect(byRole(roleOfFunction('Poller'))).toEqual(
      expect.arrayContaining([ref(synth.ops.topics.paging), ref(synth.ops.topics.notice)]),
    );
    expect(byRole(roleOfFunction('Poller'))).toHaveLength(2);
    expect(byRole(roleOfFunction('Digest'))).toEqual([ref(synth.ops.topics.digest)]);
    expect(publish).toHaveLength(2);
  });

  it('grants CloudWatch only GetMetricData and DescribeAlarms, and assumes only the node-lookup roles of linked accounts', () => {
    const statements = policyStatements();
    const cloudwatch = statements.filter(({ statement }) =>
      actionsOf(statement).some((a) => a.startsWith('cloudwatch:')),
    );
    const assume = statements.filter(({ statement }) => actionsOf(statement).some((a) => a.startsWith('sts:')));
    // The poller also reads its tripwire alarms' states back on the slow cadence.
    expect(cloudwatch.map(({ statement }) => statement)).toEqual([
      { Effect: 'Allow', Action: ['cloudwatch:DescribeAlarms', 'cloudwatch:GetMetricData'], Resource: '*' },
    ]);
    expect(assume.map(({ policy }) => policy.startsWith('NodeChurn'))).toEqual([true]);
    for (const role of asList(assume[0]?.statement.Resource)) {
      expect(JSON.stringify(role)).toMatch(/:iam::\d{12}:role\/k8s-incident-sentinel-node-lookup-[a-z0-9-]+"/);
    }
  });

  it('grants the table’s data actions on the table and its indexes only', () => {
    const dynamodb = policyStatements().filter(({ statement }) =>
      actionsOf(statement).some((a) => a.startsWith('dynamodb:')),
    );
    // Poller (read-write), digest (read), tripwire (PutItem only), delivery (its ledger's GetItem and UpdateItem) and
    // node churn (PutItem, UpdateItem).
    expect(dynamodb).toHaveLength(5);
    expect(
      dynamodb.filter(({ policy }) => policy.startsWith('Tripwire')).map(({ statement }) => statement.Action),
    ).toEqual(['dynamodb:PutItem']);
    // The tripwire, the delivery and node churn read and write items: the table alone. The others query the byDay index too.
    for (const { policy, statement } of dynamodb) {
      expect(statement.Resource).toEqual(
        policy.startsWith('Tripwire') || policy.startsWith('PagingDelivery') || policy.startsWith('NodeChurn')
          ? arnOf(synth.ops.table)
          : [arnOf(synth.ops.table), { 'Fn::Join': ['', [arnOf(synth.ops.table), '/index/*']] }],
      );
    }
  });

  it('gives no action on every resource except the CloudWatch reads and DescribeInstances', () => {
    const unscoped = policyStatements()
      .filter(({ statement }) => asList(statement.Resource).includes('*'))
      .flatMap(({ statement }) => actionsOf(statement));
    expect(new Set(unscoped)).toEqual(
      new Set(['cloudwatch:DescribeAlarms', 'cloudwatch:GetMetricData', 'ec2:DescribeInstances']),
    );
  });
});

describe('the schedules', () => {
  it('poll every minute, passing the scheduled time and execution id, with retries and a dead-letter queue', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: arnOf(synth.ops.poller.function),
        Input:
          '{"kind":"poll","scheduledTime":"<aws.scheduler.scheduled-time>","executionId":"<aws.scheduler.execution-id>"}',
        RetryPolicy: { MaximumEventAgeInSeconds: 60, MaximumRetryAttempts: 3 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DeadLetters'), 'Arn'] } },
      },
    });
  });

  it('send the weekly digest at the configured day and time, in the configured time zone', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(30 16 ? * FRI *)',
      ScheduleExpressionTimezone: 'America/New_York',
      Target: {
        Arn: arnOf(synth.ops.digest.function),
        Input: '{"kind":"digest","scheduledTime":"<aws.scheduler.scheduled-time>"}',
        RetryPolicy: { MaximumEventAgeInSeconds: 7200, MaximumRetryAttempts: 10 },
        DeadLetterConfig: { Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DeadLetters'), 'Arn'] } },
      },
    });
  });
});

describe('the dead-letter queue', () => {
  it('is encrypted with the deployment key, refuses requests without TLS and keeps messages 14 days', () => {
    template.resourcePropertiesCountIs(
      'AWS::SQS::Queue',
      { KmsMasterKeyId: arnOf(deploymentKey()), MessageRetentionPeriod: 1209600 },
      1,
    );
    template.resourcePropertiesCountIs(
      'AWS::SQS::QueuePolicy',
      {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      },
      // The dead-letter queue and the delivery queue.
      2,
    );
  });
});

describe('self-monitoring', () => {
  const pagingAlarm = (name: string, props: Record<string, unknown>) =>
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `OpsStack-${name}`,
      AlarmActions: [ref(synth.ops.topics.paging)],
      ...props,
    });

  it('pages when the poller was not invoked in 5 of 5 minutes, from its own Invocations, missing data breaching', () => {
    pagingAlarm('PollerHeartbeat', {
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: ref(synth.ops.poller.function) }],
      Period: 60,
      Statistic: 'Sum',
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 5,
      TreatMissingData: 'breaching',
    });
  });

  it('pages when polls ran but none did its job in 5 of 5 minutes, from IdlePolls alone', () => {
    pagingAlarm('IdlePolls', {
      Namespace: PIPELINE_NAMESPACE,
      MetricName: 'IdlePolls',
      Dimensions: [{ Name: DEPLOYMENT_DIMENSION, Value: 'OpsStack' }],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 5,
      TreatMissingData: 'notBreaching',
    });
  });

  describe('the heartbeat and idle-poll alarms, evaluated as CloudWatch evaluates them', () => {
    /** The synthesized alarm's state after the newest of `minutes`, each minute's datapoint or undefined when none. */
    const stateOf = (name: string, minutes: readonly (number | undefined)[]) => {
      const [alarm] = Object.values(
        template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmName: `OpsStack-${name}` } }),
      );
      const props = alarm?.Properties;
      const breaches = (value: number) =>
        props.ComparisonOperator === 'LessThanThreshold' ? value < props.Threshold : value > props.Threshold;
      const inAlarm = alarmInAlarm(
        {
          evaluationPeriods: props.EvaluationPeriods,
          datapointsToAlarm: props.DatapointsToAlarm,
          treatMissingData: props.TreatMissingData,
        },
        (back) => {
          const value = minutes[minutes.length - 1 - back];
          return value === undefined ? null : breaches(value);
        },
      );
      return inAlarm ? 'ALARM' : 'OK';
    };
    const minutes = (count: number, value: number | undefined) => Array<number | undefined>(count).fill(value);

    it('pages PollerHeartbeat when the poller is not invoked, and not when every invocation fails', () => {
      // A failed invocation is still an invocation: PollerErrors pages for it, alone.
      expect([stateOf('PollerHeartbeat', minutes(8, undefined)), stateOf('PollerHeartbeat', minutes(8, 1))]).toEqual([
        'ALARM',
        'OK',
      ]);
    });

    it('pages IdlePolls when every poll is idle, even while the newest minute’s idle poll has not arrived', () => {
      expect([
        stateOf('IdlePolls', minutes(8, 1)),
        stateOf('IdlePolls', [...minutes(7, 1), undefined]),
        stateOf('IdlePolls', [...minutes(5, 1), undefined, undefined]),
      ]).toEqual(['ALARM', 'ALARM', 'ALARM']);
    });

    it('leaves IdlePolls OK for a healthy poller, which sends no idle poll, and for idle polls in 4 of 5 minutes', () => {
      expect([
        stateOf('IdlePolls', minutes(8, undefined)),
        stateOf('IdlePolls', [undefined, undefined, undefined, 1, 1, undefined, 1, 1]),
      ]).toEqual(['OK', 'OK']);
    });
  });

  it('pages when CloudWatch cannot be read for some clusters for five minutes', () => {
    pagingAlarm('UnreadableClusters', {
      Namespace: 'K8sIncidentSentinel',
      MetricName: 'UnreadableClusters',
      EvaluationPeriods: 5,
      DatapointsToAlarm: 5,
      TreatMissingData: 'notBreaching',
    });
  });

  it('pages on notification failures over several minutes', () => {
    pagingAlarm('NotificationFailures', {
      MetricName: 'NotificationFailures',
      Namespace: 'K8sIncidentSentinel',
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      EvaluationPeriods: 5,
      DatapointsToAlarm: 3,
    });
  });

  it('pages on every failure metric the poller emits, read by the namespace and dimension it is emitted with', () => {
    const failures = Object.entries(PIPELINE_METRICS)
      .filter(([, metric]) => metric.failure)
      .map(([name]) => name);
    const emitted = { Namespace: PIPELINE_NAMESPACE, Dimensions: [{ Name: DEPLOYMENT_DIMENSION, Value: 'OpsStack' }] };

    for (const name of failures) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        ...emitted,
        MetricName: name,
        AlarmActions: [ref(synth.ops.topics.paging)],
        // The poller sends a failure count only when it is not zero: a minute it is not sent is a good minute.
        TreatMissingData: 'notBreaching',
      });
    }
    expect(failures).toEqual(['NotificationFailures', 'UnreadableClusters', 'StepsQuarantined', 'IdlePolls']);
  });

  it('pages on poller errors, throttles and polls near the timeout', () => {
    pagingAlarm('PollerErrors', { Namespace: 'AWS/Lambda', MetricName: 'Errors' });
    pagingAlarm('PollerThrottles', { Namespace: 'AWS/Lambda', MetricName: 'Throttles' });
    pagingAlarm('PollerDuration', { MetricName: 'Duration', Statistic: 'Maximum', Threshold: 40000 });
  });

  it('pages when the dead-letter queue, the one queue of everything given up on, holds a message', () => {
    // The dead-letter queue, and the delivery queue that moves a notification there after five runs.
    template.resourceCountIs('AWS::SQS::Queue', 2);
    pagingAlarm('DeadLetters', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DeadLetters'), 'QueueName'] } },
      ],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });

  it("page PagerDuty, Opsgenie and JSM too: every alarm's ALARM and OK go from EventBridge into the delivery queue", () => {
    const delivery = synth.ops.delivery;
    if (!delivery) throw new Error('the test configuration has paging integrations');
    const alarmNames = template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { AlarmActions: [ref(synth.ops.topics.paging)] },
    });

    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.cloudwatch'],
        'detail-type': ['CloudWatch Alarm State Change'],
        detail: {
          alarmName: Object.keys(alarmNames).map((logicalId) => ({ Ref: logicalId })),
          state: { value: ['ALARM', 'OK'] },
        },
      },
      Targets: [
        Match.objectLike({
          Arn: arnOf(delivery.queue),
          RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 3600 },
          DeadLetterConfig: Match.objectLike({ Arn: Match.anyValue() }),
        }),
      ],
    });
    expect(Object.keys(alarmNames).length).toBeGreaterThanOrEqual(6);
  });

  it('each say on a page what they mean and what to do (shared/delivery/pipeline-alarm.ts)', () => {
    const names = Object.values(template.findResources('AWS::CloudWatch::Alarm'))
      .map((alarm) => String(alarm.Properties.AlarmName))
      .filter((name) => !name.startsWith('OpsStack-tripwire-'));

    expect(names.filter((name) => !Object.keys(PIPELINE_ALARMS).some((id) => name === `OpsStack-${id}`))).toEqual([]);
  });

  it('leaves out the early warnings when the configuration asks', () => {
    const quiet = synthSentinelApp({ bundle: false, configFile: fixture('aws-managed-keys.json') });
    try {
      const names = Object.values(Template.fromStack(quiet.ops).findResources('AWS::CloudWatch::Alarm')).map(
        (alarm) => alarm.Properties.AlarmName,
      );
      expect(names.filter((name) => /Poller(Throttles|Duration)$/.test(name))).toEqual([]);
      expect(names).toEqual(expect.arrayContaining(['OpsStack-PollerHeartbeat', 'OpsStack-PollerErrors']));
    } finally {
      quiet.dispose();
    }
  });
});

describe('the tripwires', () => {
  const tripwireAlarms = () =>
    synth.tripwires.flatMap((stack) =>
      Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm')),
    );
  const tripwireOf = (cluster: string) =>
    tripwireAlarms().find((alarm) => alarm.Properties.AlarmName === `OpsStack-tripwire-${cluster}`)?.Properties as {
      Metrics: {
        Id: string;
        Expression?: string;
        AccountId?: string;
        MetricStat?: { Metric: { MetricName: string }; Stat: string; Period: number };
      }[];
    } & Record<string, unknown>;

  it('are one metric-math alarm per cluster, 1 of 2 a minute, missing data breaching, paging no one', () => {
    expect(tripwireOf('prod-euw1')).toMatchObject({
      EvaluationPeriods: 2,
      DatapointsToAlarm: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'breaching',
      ActionsEnabled: false,
    });
  });

  it('read the PATCH p99 as its Average, the request, 5xx, 429 and webhook rejection counts as Sums, and Container Insights NotReady count as Maximum', () => {
    const read = tripwireOf('prod-euw1').Metrics.flatMap((m) =>
      m.MetricStat ? [`${m.Id}: ${m.MetricStat.Metric.MetricName} ${m.MetricStat.Stat} ${m.MetricStat.Period}`] : [],
    );

    expect(read).toEqual([
      'write: apiserver_request_duration_seconds_PATCH_P99 Average 60',
      'requests: apiserver_request_total Sum 60',
      'errors: apiserver_request_total_5XX Sum 60',
      'shed: apiserver_request_total_429 Sum 60',
      'rejections: apiserver_admission_webhook_rejection_count Sum 60',
      'notReady: cluster_failed_node_count Maximum 60',
    ]);
  });

  it('arm on slow writes, on a share of 5xx and 429, on webhook calls failing closed, and on three nodes NotReady', () => {
    expect(tripwireOf('prod-euw1').Metrics.find((m) => m.Expression)?.Expression).toBe(
      '((write >= 1) OR ((requests >= 50) AND ((errors + shed) >= (0.05 * requests))) OR ((rejections >= 10) AND (errors >= (0.5 * rejections))) OR (notReady >= 3))',
    );
  });

  it('read a linked cluster’s metrics in its own account', () => {
    const accounts = tripwireOf('dev-euw1').Metrics.flatMap((m) => (m.MetricStat ? [m.AccountId] : []));

    expect(new Set(accounts)).toEqual(new Set(['222233334444']));
  });

  it('let EventBridge put the events it gives up on into the encrypted dead-letter queue', () => {
    const key = Object.values(template.findResources('AWS::KMS::Key'))[0];
    const statement = key?.Properties.KeyPolicy.Statement.find(
      (s: { Sid?: string }) => s.Sid === 'EventBridgeMovesUndeliveredEventsToEncryptedQueue',
    );

    expect(statement).toMatchObject({
      Principal: { Service: 'events.amazonaws.com' },
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
    });
  });

  it('exist for every cluster whose profile gives them something to watch, and none in the OpsStack', () => {
    const names = tripwireAlarms().map((alarm) => alarm.Properties.AlarmName as string);
    const inOpsStack = Object.values(template.findResources('AWS::CloudWatch::Alarm')).filter((alarm) =>
      (alarm.Properties.AlarmName as string).includes('-tripwire-'),
    );

    // batch-euw1 publishes a NotReady count of its own, which is all the NotReady leg reads.
    expect([names.sort(), inOpsStack]).toEqual([
      ['OpsStack-tripwire-batch-euw1', 'OpsStack-tripwire-dev-euw1', 'OpsStack-tripwire-prod-euw1'],
      [],
    ]);
  });

  it('send their state changes to a function of their own, with retries and a dead-letter queue', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.cloudwatch'],
        'detail-type': ['CloudWatch Alarm State Change'],
        detail: { alarmName: [{ prefix: 'OpsStack-tripwire-' }] },
      },
      Targets: [
        Match.objectLike({
          Arn: arnOf(synth.ops.tripwire.function),
          RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 600 },
          DeadLetterConfig: Match.objectLike({ Arn: Match.anyValue() }),
        }),
      ],
    });
  });
});

describe('the dashboard', () => {
  it('is left out unless the configuration asks for it, and so is its output', () => {
    const example = synthSentinelApp({ configFile: EXAMPLE_CONFIG, bundle: false });
    try {
      const withoutIt = Template.fromStack(example.ops);
      withoutIt.resourceCountIs('AWS::CloudWatch::Dashboard', 0);
      expect(Object.keys(withoutIt.findOutputs('DashboardName'))).toEqual([]);
      template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    } finally {
      example.dispose();
    }
  });

  it('draws write and read p99 of each EKS cluster as the worst of their verbs', () => {
    const widget = dashboardBody().widgets.find((w) => w.properties.title === 'prod-euw1: API request p99 (s)');
    expect(JSON.stringify(widget?.properties.metrics)).toContain('MAX([post, put, patch, del])');
    expect(JSON.stringify(widget?.properties.metrics)).toContain('apiserver_request_duration_seconds_LIST_P99');
  });

  it('reads the metrics of a linked cluster in its own account and region', () => {
    const widget = dashboardBody().widgets.find((w) => w.properties.title === 'dev-euw1: admission webhook p99 (s)');
    expect(widget?.properties.metrics).toContainEqual([
      'AWS/EKS',
      'apiserver_admission_webhook_admission_duration_seconds_VALIDATING_P99',
      'ClusterName',
      'dev-euw1',
      expect.objectContaining({ accountId: '222233334444', region: 'eu-west-1' }),
    ]);
  });

  it('sums node replacements over the cluster’s node groups and shows NotReady nodes', () => {
    const widget = dashboardBody().widgets.find((w) => w.properties.title === 'prod-euw1: nodes');
    const metrics = JSON.stringify(widget?.properties.metrics);
    expect(metrics).toContain('SUM([group0, group1])');
    expect(metrics).toContain('cluster_failed_node_count');
  });

  it('shows the pipeline’s polls, requested metrics and notifications', () => {
    const pipeline = JSON.stringify(
      dashboardBody()
        .widgets.filter((w) => w.type === 'metric')
        .slice(-4),
    );
    for (const metric of ['IdlePolls', 'MetricsRequested', 'NotificationsSent', 'NotificationFailures']) {
      expect(pipeline).toContain(`"K8sIncidentSentinel","${metric}","Deployment","OpsStack"`);
    }
  });

  it('graphs the poller’s invocations beside its idle polls, what the heartbeat and idle-poll alarms read', () => {
    const graph = dashboardBody().widgets.find((w) => w.properties.title === 'Poller runs per minute');

    expect(graph?.properties.metrics).toEqual([
      ['AWS/Lambda', 'Invocations', 'FunctionName', 'REF', { label: 'invocations', period: 60, stat: 'Sum' }],
      ['K8sIncidentSentinel', 'IdlePolls', 'Deployment', 'OpsStack', { label: 'idle polls', period: 60, stat: 'Sum' }],
    ]);
  });
});

describe('cross-account metrics', () => {
  it('let exactly the configured workload accounts link their metrics to the OAM sink', () => {
    template.hasResourceProperties('AWS::Oam::Sink', {
      Policy: {
        Statement: [
          Match.objectLike({
            Effect: 'Allow',
            Principal: { AWS: ['222233334444', '555566667777'] },
            Action: ['oam:CreateLink', 'oam:UpdateLink'],
            Condition: { 'ForAllValues:StringEquals': { 'oam:ResourceTypes': ['AWS::CloudWatch::Metric'] } },
          }),
        ],
      },
    });
  });
});

describe('the outputs', () => {
  it('name the topics and the table for sentinel test-page', () => {
    template.hasOutput('PagingTopicArn', { Value: ref(synth.ops.topics.paging) });
    template.hasOutput('NoticeTopicArn', { Value: ref(synth.ops.topics.notice) });
    template.hasOutput('DigestTopicArn', { Value: ref(synth.ops.topics.digest) });
    template.hasOutput('TableName', { Value: ref(synth.ops.table) });
  });
});

describe('PagerDuty and Opsgenie delivery', () => {
  const delivery = () => {
    if (!synth.ops.delivery) throw new Error('the test configuration names PagerDuty and Opsgenie subscribers');
    return synth.ops.delivery;
  };

  it('takes every notification of the paging topic, raw, and none of the pipeline alarms', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: ref(synth.ops.topics.paging),
      Endpoint: arnOf(delivery().queue),
      RawMessageDelivery: true,
      FilterPolicy: { kind: [{ exists: true }] },
    });
  });

  it('reports failed records alone, and moves a record that fails five runs to the alarmed dead-letter queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: ref(delivery().function.function),
      EventSourceArn: arnOf(delivery().queue),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: 360,
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DeadLetters'), 'Arn'] },
        maxReceiveCount: 5,
      },
    });
  });

  it('reads the named secrets at run time, and puts no key and no reference to one in the template', () => {
    const secrets = policyStatements()
      .map(({ statement }) => statement)
      .filter((statement) => actionsOf(statement).includes('secretsmanager:GetSecretValue'));
    const text = JSON.stringify(template.toJSON());

    expect(JSON.stringify(secrets.map((s) => s.Resource))).toMatch(/secret:sentinel\/pagerduty-events-\?{6}/);
    expect(JSON.stringify(secrets.map((s) => s.Resource))).toMatch(/secret:sentinel\/opsgenie-prod-\?{6}/);
    expect(secrets.flatMap(actionsOf)).toEqual(['secretsmanager:GetSecretValue']);
    expect(text).not.toMatch(/resolve:secretsmanager:sentinel\/(pagerduty-events|opsgenie-prod)/);
  });

  it('names its integrations, and never their keys, for sentinel test-page', () => {
    template.hasOutput('PagingIntegrations', {
      Value:
        'https:sentinel/pagerduty#integrationUrl,pagerduty:sentinel/pagerduty-events#routingKey,opsgenie:sentinel/opsgenie-prod',
    });
  });
});
