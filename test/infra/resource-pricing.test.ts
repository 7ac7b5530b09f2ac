import { Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as elasticache from 'aws-cdk-lib/aws-elasticache';
import {
  type FleetUsage,
  priceTemplate,
  RESOURCE_PRICING,
  type TemplateResource,
  templateResources,
  UnpricedResourceError,
} from '../../support/resource-pricing.ts';
import { EXAMPLE_CONFIG, newApp, synthSentinelApp, TEST_CONFIG } from '../../support/synth-sentinel-app.ts';

const USAGE: FleetUsage = {
  clusterScale: 1,
  functions: {
    Poller: { invocations: 43_200, gbSeconds: 1000 },
    Tripwire: { invocations: 300, gbSeconds: 10 },
    Digest: { invocations: 4, gbSeconds: 240 },
    PagingDelivery: { invocations: 10, gbSeconds: 3 },
    NodeChurn: { invocations: 3000, gbSeconds: 30 },
  },
  dynamoReadUnits: 150_000,
  dynamoWriteUnits: 360_000,
  logIngestedGb: 0.05,
  topicPublishes: 10,
  serviceEvents: 300,
  forwardedEvents: 1500,
};

/** The resources of every stack of the app: the OpsStack, and the stacks of the sinks and workload accounts. */
function appResources(configFile: string): TemplateResource[] {
  const synth = synthSentinelApp({ configFile, bundle: false });
  try {
    return templateResources(synth.assembly.stacks);
  } finally {
    synth.dispose();
  }
}

describe('the cost model and the templates', () => {
  it.each([
    ['the test configuration', TEST_CONFIG],
    ['the example configuration', EXAMPLE_CONFIG],
  ])('prices, or says why it is free, every resource type the app creates for %s', (_name, configFile) => {
    const types = new Set(appResources(configFile).map((r) => r.type));

    expect([...types].filter((type) => RESOURCE_PRICING[type] === undefined)).toEqual([]);
  });

  it('prices every alarm of the stack, the tripwire alarms per alarm metric', () => {
    const lines = priceTemplate(appResources(EXAMPLE_CONFIG), USAGE);
    const monthly = (item: string) => lines.find((l) => l.item === item)?.monthly;

    expect([monthly('Tripwire alarms'), monthly('Pipeline alarms')]).toEqual([
      expect.closeTo(2 * 6 * 0.1),
      // The ops stack's eight (nine alarm metrics: the heartbeat reads two), and the forwarding dead-letter alarm of
      // the example's one workload account.
      expect.closeTo(10 * 0.1),
    ]);
  });

  it('prices the heartbeat and idle-poll alarms at one alarm metric each', () => {
    const names = ['OpsStack-PollerHeartbeat', 'OpsStack-IdlePolls'];
    const alarms = appResources(EXAMPLE_CONFIG).filter(
      (r) => r.type === 'AWS::CloudWatch::Alarm' && names.includes(String(r.properties.AlarmName)),
    );
    const lines = priceTemplate(alarms, USAGE);

    expect(lines.find((l) => l.item === 'Pipeline alarms')).toEqual({
      item: 'Pipeline alarms',
      monthly: expect.closeTo(2 * 0.1),
      basis: '2 alarms, 2 alarm metrics',
    });
  });
});

describe('priceTemplate', () => {
  const resource = (type: string, properties: Record<string, unknown> = {}): TemplateResource => ({
    stack: 'OpsStack',
    logicalId: `${type.split('::')[2]}1`,
    type,
    properties,
  });

  it('refuses a billable resource type that the table does not know', () => {
    const app = newApp({ bundle: false });
    const stack = new Stack(app, 'Extra');
    new elasticache.CfnCacheCluster(stack, 'Cache', {
      cacheNodeType: 'cache.t4g.micro',
      engine: 'redis',
      numCacheNodes: 1,
    });
    const resources = templateResources(app.synth().stacks);

    expect(() => priceTemplate(resources, USAGE)).toThrow(
      /AWS::ElastiCache::CacheCluster, which bench\/resource-pricing.ts neither prices nor lists as free/,
    );
  });

  it('prices an alarm added to the stack', () => {
    const app = newApp({ bundle: false });
    const stack = new Stack(app, 'Extra');
    const metric = new cloudwatch.Metric({ namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible' });
    const alarm = metric.createAlarm(stack, 'Added', { threshold: 0, evaluationPeriods: 1 });
    new cloudwatch.CompositeAlarm(stack, 'Composite', {
      alarmRule: cloudwatch.AlarmRule.fromAlarm(alarm, cloudwatch.AlarmState.ALARM),
    });
    const lines = priceTemplate(templateResources(app.synth().stacks), USAGE);

    expect(lines.map((l) => [l.item, l.monthly])).toEqual(
      expect.arrayContaining([
        ['Pipeline alarms', expect.closeTo(0.1)],
        ['Composite alarms', expect.closeTo(0.5)],
      ]),
    );
  });

  it('refuses a function the bench has no usage figure for', () => {
    const fn = resource('AWS::Lambda::Function', {});

    expect(() => priceTemplate([{ ...fn, logicalId: 'PagerDutyDeliveryFunction1' }], USAGE)).toThrow(
      UnpricedResourceError,
    );
  });

  it('refuses a rule that matches custom events, which are billed per event', () => {
    const rule = resource('AWS::Events::Rule', { EventPattern: { source: ['sentinel.node-events'] } });

    expect(() => priceTemplate([rule], USAGE)).toThrow(/billed per event/);
  });

  it('prices the events a rule forwards to another bus as custom events, from the forwarded count', () => {
    const rule = resource('AWS::Events::Rule', {
      EventPattern: { source: ['aws.autoscaling'] },
      Targets: [{ Arn: 'arn:aws:events:eu-west-1:111122223333:event-bus/default', Id: 'Ops' }],
    });
    const forwarded = priceTemplate([rule], USAGE).find((l) => l.item === 'EventBridge forwarded events');

    expect(forwarded?.monthly).toBeCloseTo(USAGE.forwardedEvents / 1e6);
  });

  it('prices a queue a function consumes by the receives of its long polling', () => {
    const lines = priceTemplate([resource('AWS::Lambda::EventSourceMapping')], USAGE);

    expect(lines).toEqual([expect.objectContaining({ item: 'SQS polling', monthly: expect.closeTo(0.2592) })]);
  });
});
