import { rmSync } from 'node:fs';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildSentinelApp, type SentinelStacks } from '../../infra/sentinel-app.ts';
import { fixture, newApp } from '../../support/synth-sentinel-app.ts';

/**
 * Every account and Region that forwards events to the ops account has an alarm on its forwarding dead-letter queue;
 * the alarm's state changes are forwarded with the events, and the ops account pages them through the paging topic.
 */

const ALARM_NAME = 'OpsStack-ForwardingDeadLetters';
let stacks: SentinelStacks;
let outdir: string;

beforeAll(() => {
  const app = newApp({ bundle: false });
  outdir = app.outdir;
  stacks = buildSentinelApp(app, { configFile: fixture('three-regions.json') });
  app.synth();
});
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('forwarding dead letters', () => {
  it('are alarmed in every workload account stack and forwarding stack, and the alarm is forwarded with the events', () => {
    const forwarders = [...stacks.sources, ...stacks.forwarding];
    expect(forwarders.map((stack) => stack.stackName).sort()).toEqual([
      'ForwardingStack-ap-southeast-2',
      'ForwardingStack-eu-west-1',
      'SourceAccountStack',
      'SourceAccountStack-ap-southeast-2',
      'SourceAccountStack-eu-west-1',
    ]);
    for (const stack of forwarders) {
      const template = Template.fromStack(stack);
      const alarms = template.findResources('AWS::CloudWatch::Alarm', { Properties: { AlarmName: ALARM_NAME } });
      const [alarmId] = Object.keys(alarms);
      expect([stack.stackName, Object.keys(alarms)]).toEqual([stack.stackName, [expect.any(String)]]);
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        AlarmName: ALARM_NAME,
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          { Name: 'QueueName', Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeadLetters'), 'QueueName'] } },
        ],
        Threshold: 0,
      });
      template.hasResourceProperties('AWS::Events::Rule', {
        EventPattern: {
          source: ['aws.cloudwatch'],
          'detail-type': ['CloudWatch Alarm State Change'],
          resources: [{ 'Fn::GetAtt': [alarmId, 'Arn'] }],
        },
        Targets: [Match.objectLike({ Arn: Match.anyValue(), DeadLetterConfig: Match.anyValue() })],
      });
    }
  });

  it('page in the ops account from the default bus and the workload accounts bus, naming account and Region', () => {
    const template = Template.fromStack(stacks.ops);
    const routes = template.findResources('AWS::Events::Rule', {
      Properties: { EventPattern: { detail: { alarmName: [ALARM_NAME] } } },
    });

    const buses = Object.values(routes).map((rule) => rule.Properties.EventBusName ?? 'default');
    expect(buses.sort()).toEqual(['OpsStack-node-events', 'default']);
    for (const rule of Object.values(routes)) {
      expect(rule.Properties.Targets).toEqual([
        expect.objectContaining({
          Arn: { Ref: expect.stringMatching(/PagingTopic/) },
          DeadLetterConfig: { Arn: { 'Fn::GetAtt': [expect.stringMatching(/^DeadLetters/), 'Arn'] } },
          InputTransformer: expect.objectContaining({
            InputPathsMap: expect.objectContaining({ account: '$.account', region: '$.region' }),
          }),
        }),
      ]);
    }
  });
});

describe('forwarding dead letters, where PagerDuty or Opsgenie is configured', () => {
  it('also go into the delivery queue, as the whole event, which the delivery function pages with', () => {
    const app = newApp({ bundle: false });
    try {
      const paged = buildSentinelApp(app, { configFile: fixture('sentinel.test.json') });
      const template = Template.fromStack(paged.ops);
      const routes = Object.values(
        template.findResources('AWS::Events::Rule', {
          Properties: { EventPattern: { detail: { alarmName: [ALARM_NAME] } } },
        }),
      );

      expect(routes.length).toBeGreaterThan(0);
      for (const rule of routes) {
        expect(rule.Properties.Targets).toEqual([
          expect.objectContaining({ Arn: { Ref: expect.stringMatching(/PagingTopic/) } }),
          {
            Id: expect.any(String),
            Arn: { 'Fn::GetAtt': [expect.stringMatching(/^PagingDeliveryQueue/), 'Arn'] },
            DeadLetterConfig: { Arn: { 'Fn::GetAtt': [expect.stringMatching(/^DeadLetters/), 'Arn'] } },
            RetryPolicy: { MaximumEventAgeInSeconds: 3600, MaximumRetryAttempts: 5 },
          },
        ]);
      }
    } finally {
      rmSync(app.outdir, { recursive: true, force: true });
    }
  });
});
