import { TABLE_RETENTION_DAYS } from '../aws/dynamodb/table.ts';
import { AWS_PRICES, MINUTES_PER_MONTH } from '../shared/pricing/aws-prices.ts';

/** A resource of a synthesized template, as the cost model reads it. */
export interface TemplateResource {
  readonly stack: string;
  readonly logicalId: string;
  readonly type: string;
  readonly properties: Readonly<Record<string, unknown>>;
}

export interface CostLine {
  readonly item: string;
  /** Dollars a month for the whole deployment. */
  readonly monthly: number;
  readonly basis: string;
}

/** A function's month: measured by the bench for the poller and the tripwire function, from its schedule otherwise. */
export interface FunctionUsage {
  readonly invocations: number;
  readonly gbSeconds: number;
}

/** What a fleet does in a month, for the resources billed by use rather than by existing. */
export interface FleetUsage {
  /** The fleet's clusters over the template's: per-cluster resources (the tripwire alarms) scale by it. */
  readonly clusterScale: number;
  /** By the construct id the function's logical id starts with (`Poller`, `Tripwire`, `Digest`). */
  readonly functions: Readonly<Record<string, FunctionUsage>>;
  readonly dynamoReadUnits: number;
  readonly dynamoWriteUnits: number;
  readonly logIngestedGb: number;
  /** Messages published to the topics: notifications and pipeline alarm changes. */
  readonly topicPublishes: number;
  /** Tripwire alarm state changes and node events: events AWS services send to the default bus, which are free. */
  readonly serviceEvents: number;
  /** Events a rule sends on to another account's bus (node events of workload accounts), billed as custom events. */
  readonly forwardedEvents: number;
}

/** A billable resource type the table has no price for, or one billed by use with no usage figure. */
export class UnpricedResourceError extends Error {}

type Pricer = (resources: readonly TemplateResource[], usage: FleetUsage) => CostLine[];

/** How a resource type is billed: the lines it adds to the month, or why it costs nothing. */
export type ResourcePricing = { readonly priced: Pricer } | { readonly free: string };

const line = (item: string, monthly: number, basis: string): CostLine => ({ item, monthly, basis });
export const count = (n: number) => Math.round(n).toLocaleString('en-US');
/** "Cross-account observability comes with no extra cost for logs and metrics." */
const CROSS_ACCOUNT_FREE = `no charge for sharing metrics (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch-Unified-Cross-Account.html)`;

/** Tripwire alarms are per cluster (infra/tripwires.ts names them `DEPLOYMENT-tripwire-CLUSTER`). */
export const isTripwireAlarm = (alarm: TemplateResource): boolean =>
  String(alarm.properties.AlarmName ?? '').includes('-tripwire-');

/**
 * A metric alarm is billed per metric it reads, metric-math alarms included (`Metrics` entries with a `MetricStat`),
 * at the high-resolution price when it evaluates more often than a minute
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_billing.html).
 */
export function alarmMetrics(alarm: TemplateResource): number {
  const metrics = alarm.properties.Metrics;
  return Array.isArray(metrics) ? metrics.filter((m: { MetricStat?: unknown }) => m.MetricStat).length : 1;
}

const isHighResolution = (alarm: TemplateResource) =>
  Number(alarm.properties.Period ?? 60) < 60 ||
  (Array.isArray(alarm.properties.Metrics) &&
    (alarm.properties.Metrics as { MetricStat?: { Period?: number } }[]).some(
      (m) => (m.MetricStat?.Period ?? 60) < 60,
    ));

/**
 * Sizes of the items the table keeps, as DynamoDB bills storage (attribute names and values plus 100 bytes of
 * overhead: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html): a poll
 * record of a small fleet is assumed under one write unit (1 KB), a notification with its evidence a few.
 */
const POLL_RECORD_BYTES = 1000;
const NOTIFICATION_ITEM_BYTES = 4000;

/** Requests a caller makes for one data key per reuse period of five minutes (the SNS and DynamoDB documents). */
const KMS_REQUESTS_PER_CALLER_MONTH = MINUTES_PER_MONTH / 5;

function usageOf(fn: TemplateResource, usage: FleetUsage): FunctionUsage {
  const name = Object.keys(usage.functions).find((prefix) => fn.logicalId.startsWith(prefix));
  const found = name === undefined ? undefined : usage.functions[name];
  if (!found) {
    throw new UnpricedResourceError(
      `${fn.stack}/${fn.logicalId} (AWS::Lambda::Function) has no usage figure: give the bench its invocations and duration`,
    );
  }
  return found;
}

/**
 * Every resource type the app's templates create, with its price or the reason it is free. The cost model prices a
 * template through this table only, and a test fails when a template holds a type that is not here: an alarm, queue
 * or function added to the stack is priced, or said to be free, before it is deployed.
 */
export const RESOURCE_PRICING: Readonly<Record<string, ResourcePricing>> = {
  'AWS::CloudWatch::Alarm': {
    priced: (alarms, usage) => {
      const tripwires = alarms.filter(isTripwireAlarm);
      const pipeline = alarms.filter((a) => !isTripwireAlarm(a));
      const monthOf = (alarm: TemplateResource) =>
        alarmMetrics(alarm) *
        (isHighResolution(alarm)
          ? AWS_PRICES.highResolutionAlarmMetricMonth.usd
          : AWS_PRICES.standardAlarmMetricMonth.usd);
      const sum = (list: readonly TemplateResource[]) => list.reduce((n, a) => n + monthOf(a), 0);
      const metrics = (list: readonly TemplateResource[]) => list.reduce((n, a) => n + alarmMetrics(a), 0);
      return [
        line(
          'Tripwire alarms',
          sum(tripwires) * usage.clusterScale,
          `${metrics(tripwires) / Math.max(1, tripwires.length)} alarm metrics per cluster (one metric-math alarm)`,
        ),
        line('Pipeline alarms', sum(pipeline), `${pipeline.length} alarms, ${metrics(pipeline)} alarm metrics`),
      ];
    },
  },
  'AWS::CloudWatch::CompositeAlarm': {
    priced: (alarms) => [
      line(
        'Composite alarms',
        alarms.length * AWS_PRICES.compositeAlarmMonth.usd,
        `${alarms.length} composite alarm(s), beside the metric alarms they combine`,
      ),
    ],
  },
  'AWS::CloudWatch::Dashboard': {
    priced: (dashboards) => [
      line(
        'Dashboard',
        dashboards.length * AWS_PRICES.dashboardMonth.usd,
        `${dashboards.length} dashboard(s); the free tier's 3 left out`,
      ),
    ],
  },
  'AWS::KMS::Key': {
    priced: (keys, usage) => {
      // An upper bound, as if every caller were busy all month: each function twice (its table reads and writes, its
      // log group), and the topics' two kinds of publisher (the functions, the alarms), each asking for a data key once
      // per reuse period of 5 minutes (R = B / D × 2P: https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html).
      const callers = 2 * Object.keys(usage.functions).length + 2;
      const requests = keys.length * callers * KMS_REQUESTS_PER_CALLER_MONTH;
      return [
        line(
          'KMS key',
          keys.length * AWS_PRICES.kmsKeyMonth.usd + requests * AWS_PRICES.kmsRequest.usd,
          `${keys.length} customer managed key(s), at most ${count(requests)} requests (a data key per caller each 5 min)`,
        ),
      ];
    },
  },
  'AWS::SecretsManager::Secret': {
    priced: (secrets) => [
      line(
        'Secrets Manager',
        secrets.length * AWS_PRICES.secretMonth.usd,
        `${secrets.length} secret(s); reads cached by the function`,
      ),
    ],
  },
  'AWS::Lambda::Function': {
    priced: (functions, usage) => {
      const used = functions.map((fn) => usageOf(fn, usage));
      const invocations = used.reduce((n, u) => n + u.invocations, 0);
      const gbSeconds = used.reduce((n, u) => n + u.gbSeconds, 0);
      const traced = functions.filter(
        (fn) => (fn.properties.TracingConfig as { Mode?: string } | undefined)?.Mode === 'Active',
      );
      const tracedInvocations = traced.reduce((n, fn) => n + usageOf(fn, usage).invocations, 0);
      return [
        line(
          'Lambda compute',
          gbSeconds * AWS_PRICES.lambdaArmGbSecond.usd,
          `${count(gbSeconds)} GB-s over ${functions.length} functions (arm64)`,
        ),
        line('Lambda requests', invocations * AWS_PRICES.lambdaRequest.usd, `${count(invocations)} invocations`),
        line(
          'X-Ray traces',
          tracedInvocations * AWS_PRICES.xrayTrace.usd,
          traced.length === 0 ? 'tracing off (docs/deploy.md)' : `${traced.length} traced function(s)`,
        ),
      ];
    },
  },
  'AWS::Scheduler::Schedule': {
    priced: (schedules) => {
      const invocations = schedules.reduce((n, s) => n + schedulerInvocations(s), 0);
      return [
        line(
          'EventBridge Scheduler',
          invocations * AWS_PRICES.schedulerInvocation.usd,
          `${count(invocations)} invocations (${schedules.length} schedules)`,
        ),
      ];
    },
  },
  'AWS::DynamoDB::Table': {
    priced: (tables, usage) => {
      // What accumulates is one poll record per poll and the outbox's notifications, each kept for the table's
      // retention before TTL deletes it; the other writes overwrite an item (the step cursor, tripwires, churn).
      const polls = usage.functions.Poller?.invocations ?? 0;
      const storedBytes = polls * POLL_RECORD_BYTES + usage.topicPublishes * NOTIFICATION_ITEM_BYTES;
      const storedGb = (storedBytes * (TABLE_RETENTION_DAYS / 30)) / 1e9;
      const recovered = tables.filter(
        (t) =>
          (t.properties.PointInTimeRecoverySpecification as { PointInTimeRecoveryEnabled?: boolean } | undefined)
            ?.PointInTimeRecoveryEnabled === true,
      );
      return [
        line(
          'DynamoDB requests',
          usage.dynamoReadUnits * AWS_PRICES.dynamoReadUnit.usd +
            usage.dynamoWriteUnits * AWS_PRICES.dynamoWriteUnit.usd,
          `${count(usage.dynamoReadUnits)} RRU + ${count(usage.dynamoWriteUnits)} WRU, measured per quiet poll, incident and event`,
        ),
        line(
          'DynamoDB storage',
          storedGb * tables.length * AWS_PRICES.dynamoStorageGbMonth.usd,
          `${(storedGb * 1000).toFixed(1)} MB: ${count(polls)} poll records and ${count(usage.topicPublishes)} notifications kept ${TABLE_RETENTION_DAYS} days`,
        ),
        line(
          'DynamoDB point-in-time recovery',
          storedGb * recovered.length * AWS_PRICES.dynamoPitrGbMonth.usd,
          recovered.length > 0 ? 'continuous backups of the same size' : 'off',
        ),
      ];
    },
  },
  'AWS::Logs::LogGroup': {
    priced: (groups, usage) => {
      const longest = Math.max(...groups.map((g) => Number(g.properties.RetentionInDays ?? 3653)));
      // Stored for the retention, at most: each month adds what it ingests and drops what aged out.
      const storedGb = usage.logIngestedGb * (longest / 30);
      return [
        line(
          'CloudWatch Logs',
          usage.logIngestedGb * AWS_PRICES.logIngestionGb.usd + storedGb * AWS_PRICES.logStorageGbMonth.usd,
          `${(usage.logIngestedGb * 1000).toFixed(1)} MB ingested, kept ${longest} days`,
        ),
      ];
    },
  },
  'AWS::SNS::Topic': {
    priced: (topics, usage) => [
      line(
        'SNS publishes',
        usage.topicPublishes * AWS_PRICES.snsPublish.usd,
        `${count(usage.topicPublishes)} messages to ${topics.length} topics; email and HTTPS deliveries alike`,
      ),
    ],
  },
  'AWS::SQS::Queue': {
    priced: (queues) => [
      line(
        'SQS',
        0,
        `${queues.length} queue(s), billed per request: a dead-letter queue only when something is dead-lettered, a queue a function consumes with its event source mapping`,
      ),
    ],
  },
  'AWS::Lambda::EventSourceMapping': {
    // Lambda long-polls a queue it consumes whether or not it holds messages, each poller a ReceiveMessage per 20 s
    // wait at most (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/best-practices-setting-up-long-polling.html).
    // At low traffic Lambda keeps five pollers, and "can optimize to as few as 2" unless maximum concurrency is set
    // (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html): priced at five, the most an idle
    // queue costs, since AWS does not say when it goes down to two.
    priced: (mappings) => {
      const receives = (pollers: number) => mappings.length * pollers * 3 * MINUTES_PER_MONTH;
      return [
        line(
          'SQS polling',
          receives(5) * AWS_PRICES.sqsRequest.usd,
          `${mappings.length} queue(s) a function consumes, idle: ${count(receives(5))} receives by 5 pollers (${count(receives(2))} by as few as 2)`,
        ),
      ];
    },
  },
  'AWS::Logs::MetricFilter': {
    // Each metric a filter writes is a custom metric, billed in every hour it receives data: at most all month.
    priced: (filters) => {
      const metrics = filters.reduce(
        (n, f) =>
          n + (Array.isArray(f.properties.MetricTransformations) ? f.properties.MetricTransformations.length : 1),
        0,
      );
      return [
        line(
          'Log metric filters',
          metrics * AWS_PRICES.customMetricMonth.usd,
          `${metrics} custom metric(s) written by ${filters.length} filter(s), at most every hour`,
        ),
      ];
    },
  },
  'AWS::Events::Rule': {
    priced: (rules, usage) => {
      const custom = rules.filter((rule) => !matchesServiceEventsOnly(rule));
      if (custom.length > 0) {
        throw new UnpricedResourceError(
          `${custom.map((r) => `${r.stack}/${r.logicalId}`).join(', ')} (AWS::Events::Rule) match events other than AWS service events, which are billed per event ($${AWS_PRICES.customEvent.usd * 1e6} per million): give the bench their count`,
        );
      }
      const forwarding = rules.some(sendsToEventBus);
      return [
        line(
          'EventBridge events',
          0,
          `${count(usage.serviceEvents)} tripwire state changes and node events: AWS service events, free`,
        ),
        ...(forwarding
          ? [
              line(
                'EventBridge forwarded events',
                usage.forwardedEvents * AWS_PRICES.customEvent.usd,
                `${count(usage.forwardedEvents)} node events forwarded from workload accounts`,
              ),
            ]
          : []),
      ];
    },
  },
  'AWS::StepFunctions::StateMachine': {
    priced: (machines) => {
      throw new UnpricedResourceError(
        `${machines.map((m) => `${m.stack}/${m.logicalId}`).join(', ')} (AWS::StepFunctions::StateMachine): billed per state transition ($${AWS_PRICES.stepFunctionsStandardTransition.usd * 1000} per 1,000, standard) or per request (express): give the bench their count`,
      );
    },
  },

  'AWS::Oam::Sink': { free: CROSS_ACCOUNT_FREE },
  'AWS::Oam::Link': { free: CROSS_ACCOUNT_FREE },
  'AWS::Events::EventBus': { free: 'a bus costs nothing; events sent to it are priced by the rule that sends them' },
  'AWS::Events::EventBusPolicy': { free: 'a resource policy' },
  'AWS::IAM::Role': { free: 'IAM has no charge' },
  'AWS::IAM::Policy': { free: 'IAM has no charge' },
  'AWS::IAM::ManagedPolicy': { free: 'IAM has no charge' },
  'AWS::KMS::Alias': { free: 'an alias has no charge; the key is priced' },
  'AWS::SQS::QueuePolicy': { free: 'a resource policy' },
  'AWS::SNS::TopicPolicy': { free: 'a resource policy' },
  'AWS::SNS::Subscription': { free: 'deliveries are priced with the topic; a subscription costs nothing' },
  'AWS::Lambda::Permission': { free: 'a resource policy' },
  'AWS::Lambda::EventInvokeConfig': {
    free: 'retry settings; what it sends to a dead-letter queue is a request priced with the queue',
  },
  'AWS::Logs::ResourcePolicy': { free: 'a resource policy' },
  'AWS::CDK::Metadata': { free: 'CDK bookkeeping, not an AWS resource' },
};

function schedulerInvocations(schedule: TemplateResource): number {
  const expression = String(schedule.properties.ScheduleExpression ?? '');
  const rate = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(expression);
  if (rate) {
    const minutes = { minute: 1, hour: 60, day: 1440 }[rate[2] as 'minute' | 'hour' | 'day'];
    return MINUTES_PER_MONTH / (Number(rate[1]) * minutes);
  }
  // A weekly cron (the digest): fields minute hour day-of-month month day-of-week year.
  if (/^cron\(\S+ \S+ \? \* [A-Z]{3} \*\)$/.test(expression)) return 30 / 7;
  throw new UnpricedResourceError(
    `${schedule.stack}/${schedule.logicalId}: the schedule ${expression} is neither a rate nor a weekly cron`,
  );
}

/** A rule that forwards events to a bus (another account's, say) pays for each as a custom event (EventBridge pricing). */
const sendsToEventBus = (rule: TemplateResource) =>
  JSON.stringify(rule.properties.Targets ?? []).includes('event-bus/');

const matchesServiceEventsOnly = (rule: TemplateResource) => {
  const sources = (rule.properties.EventPattern as { source?: unknown } | undefined)?.source;
  return Array.isArray(sources) && sources.length > 0 && sources.every((s) => String(s).startsWith('aws.'));
};

/** Every resource of the stacks of a synthesized app (a cloud assembly's `stacks`). */
export function templateResources(
  stacks: readonly { readonly stackName: string; readonly template: unknown }[],
): TemplateResource[] {
  return stacks.flatMap((stack) =>
    Object.entries(
      (stack.template as { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> })
        .Resources,
    ).map(([logicalId, r]) => ({ stack: stack.stackName, logicalId, type: r.Type, properties: r.Properties ?? {} })),
  );
}

/** The month of every resource of the templates, priced by type; a type the table does not know is an error. */
export function priceTemplate(resources: readonly TemplateResource[], usage: FleetUsage): CostLine[] {
  const byType = new Map<string, TemplateResource[]>();
  for (const resource of resources) byType.set(resource.type, [...(byType.get(resource.type) ?? []), resource]);
  const unknown = [...byType.keys()].filter((type) => RESOURCE_PRICING[type] === undefined);
  if (unknown.length > 0) {
    throw new UnpricedResourceError(
      `the template creates ${unknown.join(', ')}, which bench/resource-pricing.ts neither prices nor lists as free`,
    );
  }
  return [...byType].flatMap(([type, list]) => {
    const pricing = RESOURCE_PRICING[type];
    return pricing && 'priced' in pricing ? pricing.priced(list, usage) : [];
  });
}
