import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Token } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import type { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../aws/dynamodb/table-schema.ts';
import type { DeploymentConfig } from '../shared/config/deployment-config.ts';
import { hasTripwire } from '../shared/config/deployment-shape.ts';
import { pagingIntegrations } from '../shared/delivery/paging-integrations.ts';
import { pollerMemoryMb } from '../shared/digest/cost-model.ts';
import { SHARD_SIZE } from '../shared/pipeline/shards.ts';
import { DeadLetterQueue } from './dead-letter-queue.ts';
import { ForwardingAlarmRoutes } from './forwarding-alarms.ts';
import { FUNCTION_ACCESS } from './function-access.ts';
import { MetricsSink } from './metrics-sink.ts';
import { NodeChurn } from './node-churn.ts';
import { NotificationTopics } from './notification-topics.ts';
import { PagingDelivery } from './paging-delivery.ts';
import { Poller } from './poller.ts';
import { SelfMonitoring } from './self-monitoring.ts';
import { SentinelDashboard } from './sentinel-dashboard.ts';
import { bindMetricReads, bindTable, bindTopic, type SentinelFunction } from './sentinel-function.ts';
import { SentinelKey } from './sentinel-key.ts';
import { ShardWorkers } from './shard-workers.ts';
import { TripwireArming } from './tripwire-arming.ts';
import { WeeklyDigest } from './weekly-digest.ts';

export interface OpsStackProps extends StackProps {
  readonly config: DeploymentConfig;
  /** The validated configuration file; it is bundled into both functions. */
  readonly configFile: string;
  /**
   * The OAM sink of the ops stack's Region, when clusters of workload accounts are there: the accounts to let link to
   * a sink this stack creates, or the ARN of the sink the ops account already has (one per account and Region).
   */
  readonly sink?: { readonly accounts: readonly string[] } | { readonly existingArn: string };
  /**
   * Every workload account with clusters, with each Region they are in: their node events reach this stack's default
   * bus, and the node-churn function may assume their node-lookup role of that Region.
   */
  readonly linkedAccounts?: readonly { readonly account: string; readonly region: string }[];
}

/**
 * A poll must finish before the next one is due a minute later; 50 s leaves the schedule's jitter some room, and
 * the Duration alarm warns at 80% of it.
 */
export const POLLER_TIMEOUT = Duration.seconds(50);

/**
 * At most two polls run at once. One is the normal case (a poll takes seconds and the schedule fires every minute);
 * the second lets a late poll or one Lambda retry overlap the next scheduled run without being throttled, which the
 * step and delivery claims make safe. More than two running means CloudWatch, DynamoDB or SNS is slow, and more
 * concurrency would only add load to them: further invocations wait in Lambda's async queue, and past the maximum
 * event age they go to the dead-letter queue, whose alarm pages.
 */
const POLLER_CONCURRENCY = 2;

/** A tripwire event is one conditional write: seconds are plenty, and a burst of them runs side by side. */
export const TRIPWIRE_LIMITS = { memorySize: 256, timeout: Duration.seconds(10) } as const;

/**
 * Everything in the ops account: the incidents table, the topics on-call subscribes to, the poller (every minute) and
 * the weekly digest, their schedules and the dead-letter queue, the alarms that watch the pipeline itself, the
 * dashboard and the key when the configuration has them, and the OAM sink through which workload accounts share their
 * cluster metrics.
 */
export class OpsStack extends Stack {
  /** The deployment's key, unless the configuration leaves encryption to each service's own key. */
  readonly key: SentinelKey | undefined;
  readonly table: dynamodb.Table;
  readonly topics: NotificationTopics;
  readonly poller: SentinelFunction;
  readonly digest: SentinelFunction;
  readonly tripwire: SentinelFunction;
  /** The one queue of everything the pipeline gave up on. */
  readonly deadLetterQueue: DeadLetterQueue;
  /** PagerDuty and Opsgenie delivery, when the configuration names any. */
  readonly delivery?: PagingDelivery;
  readonly nodeChurn: SentinelFunction;
  /** The shard queue and workers, for a fleet larger than one shard. */
  readonly shardWorkers?: ShardWorkers;
  readonly sink?: MetricsSink;
  /** The sink the workload accounts of this Region link to, created or existing. */
  readonly sinkArn?: string;

  constructor(scope: Construct, id: string, props: OpsStackProps) {
    super(scope, id, props);
    const { config, configFile } = props;
    const deployment = this.stackName;
    const alarmNamePrefix = `${deployment}-`;
    const topicNames = {
      paging: `${deployment}-paging`,
      notice: `${deployment}-notice`,
      digest: `${deployment}-digest`,
    };

    // Optional (`encryption.key`): $1.00 a month and its requests, for a key policy of our own (docs/deploy.md).
    const key =
      config.encryption.key === 'customer-managed'
        ? new SentinelKey(this, 'Key', { topicNames: Object.values(topicNames) })
        : undefined;
    this.key = key;
    // Everything the pipeline gave up on, in one queue behind one alarm (an alarm is billed per metric it reads, so a
    // queue per source would cost $0.10 a month each): notifications SNS could not deliver, poll and digest events
    // Scheduler could not hand over, tripwire events EventBridge could not, and invocations Lambda gave up on. Each
    // message says where it comes from (docs/deploy.md, Self-monitoring).
    const deadLetterQueue = new DeadLetterQueue(this, 'DeadLetters', { key });
    this.deadLetterQueue = deadLetterQueue;
    this.topics = new NotificationTopics(this, 'Topics', {
      config,
      topicNames,
      alarmNamePrefix,
      key,
      deadLetterQueue,
    });

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE_SCHEMA.timeToLive,
      // Without the deployment's key, DynamoDB's own (AWS owned), at no charge.
      ...(key
        ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: key }
        : { encryption: dynamodb.TableEncryption.DEFAULT }),
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: TABLE_SCHEMA.dayIndex.name,
      partitionKey: { name: TABLE_SCHEMA.dayIndex.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.dayIndex.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });

    this.poller = new Poller(this, 'Poller', {
      entry: 'functions/poller/handler.ts',
      description: 'k8s-incident-sentinel poller: reads cluster metrics, correlates incidents, pages on-call',
      // The digest's cost estimate bills the poller at this memory size.
      memorySize: pollerMemoryMb(config.clusters.length),
      timeout: POLLER_TIMEOUT,
      configFile,
      key,
      deadLetterQueue,
      reservedConcurrentExecutions: POLLER_CONCURRENCY,
      // A failed poll is retried twice; a retry that finds a later step already evaluated only delivers the outbox.
      retryAttempts: 2,
      maxEventAge: Duration.minutes(5),
    }).function;
    const { poller, digest, tripwire, nodeChurn } = FUNCTION_ACCESS;
    bindTable(this.poller, this.table, poller.table);
    bindTopic(this.poller, this.topics.paging, 'SENTINEL_PAGING_TOPIC_ARN', poller.topics);
    bindTopic(this.poller, this.topics.notice, 'SENTINEL_NOTICE_TOPIC_ARN', poller.topics);
    // Metrics of linked workload accounts are read the same way, through the OAM sink: no role to assume.
    bindMetricReads(this.poller, poller.metrics);

    this.digest = new WeeklyDigest(this, 'Digest', {
      entry: 'functions/digest/handler.ts',
      description: 'k8s-incident-sentinel weekly digest: incidents and near misses of the past week',
      memorySize: 512,
      timeout: Duration.minutes(2),
      configFile,
      key,
      deadLetterQueue,
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      digest: config.digest,
    }).function;
    bindTable(this.digest, this.table, digest.table);
    bindTopic(this.digest, this.topics.digest, 'SENTINEL_DIGEST_TOPIC_ARN', digest.topics);

    // Tripwire state changes get a function of their own: a burst of them (an ingestion delay flips every tripwire at
    // once) must not queue behind, nor hold back, the poller's two reserved executions.
    this.tripwire = new TripwireArming(this, 'Tripwire', {
      entry: 'functions/tripwire/handler.ts',
      description: 'k8s-incident-sentinel tripwire: arms and disarms minute-by-minute polling of a cluster',
      ...TRIPWIRE_LIMITS,
      configFile,
      key,
      deadLetterQueue,
      retryAttempts: 2,
      maxEventAge: Duration.minutes(10),
      deployment,
      tripwires: config.clusters.some((cluster) => hasTripwire(cluster, config)),
    }).function;
    bindTable(this.tripwire, this.table, tripwire.table);

    // Node events get a function of their own too: a spot wave or a repair storm is a burst of them.
    const nodeChurnFunction = new NodeChurn(this, 'NodeChurn', {
      entry: 'functions/node-churn/handler.ts',
      description: 'k8s-incident-sentinel node churn: counts node terminations from Auto Scaling and EC2 events',
      memorySize: 256,
      timeout: Duration.seconds(20),
      configFile,
      key,
      deadLetterQueue,
      retryAttempts: 2,
      maxEventAge: Duration.hours(1),
      linkedAccounts: props.linkedAccounts ?? [],
    });
    this.nodeChurn = nodeChurnFunction.function;
    bindTable(this.nodeChurn, this.table, nodeChurn.table);
    const nodeEvents = nodeChurnFunction.events;
    // Workload accounts forward to the linked bus, the ops account's other Regions (ForwardingStacks) to the default bus.
    const otherRegions =
      !Token.isUnresolved(this.region) &&
      config.clusters.some((c) => c.region !== undefined && c.region !== this.region);
    let forwardingAlarms: ForwardingAlarmRoutes | undefined;
    if (nodeEvents.linkedEventBus || otherRegions) {
      const routes = new ForwardingAlarmRoutes(this, 'ForwardingAlarms', {
        deployment,
        buses: [
          events.EventBus.fromEventBusName(this, 'DefaultBus', 'default'),
          ...(nodeEvents.linkedEventBus ? [nodeEvents.linkedEventBus] : []),
        ],
        topic: this.topics.paging,
        deadLetterQueue,
      });
      if (nodeEvents.linkedBus) routes.node.addDependency(nodeEvents.linkedBus);
      forwardingAlarms = routes;
    }

    // Only a fleet larger than one shard can have a step to fan out (docs/scaling.md).
    if (config.clusters.length > SHARD_SIZE) {
      this.shardWorkers = new ShardWorkers(this, 'ShardWorkers', {
        poller: this.poller,
        table: this.table,
        key,
        deadLetterQueue,
        configFile,
      });
    }

    const integrations = pagingIntegrations(config);
    if (integrations.length > 0) {
      this.delivery = new PagingDelivery(this, 'PagingDelivery', {
        integrations,
        topic: this.topics.paging,
        noticeTopic: this.topics.notice,
        table: this.table,
        key,
        deadLetterQueue,
        configFile,
      });
      new CfnOutput(this, 'PagingIntegrations', {
        // Those of the paging topic, which a test page reaches; a notice webhook is never sent one.
        value: integrations
          .filter((integration) => integration.topic === 'paging')
          .map((integration) => integration.id)
          .join(','),
        description:
          'The PagerDuty, Opsgenie and webhook integrations the delivery function pages (sentinel test-page checks each)',
      });
    }

    const monitoring = new SelfMonitoring(this, 'SelfMonitoring', {
      deployment,
      alarmNamePrefix,
      poller: this.poller,
      pollerTimeout: POLLER_TIMEOUT,
      deadLetterQueue,
      earlyWarnings: config.selfMonitoring.earlyWarnings,
      topic: this.topics.paging,
      ...(config.selfMonitoring.externalHeartbeat && { externalHeartbeat: config.selfMonitoring.externalHeartbeat }),
    });
    this.delivery?.pageOnAlarms(monitoring.alarms, deadLetterQueue);
    if (this.delivery) forwardingAlarms?.pageThrough(this.delivery.queue, deadLetterQueue);

    // Optional (`dashboard.enabled`): $3.00 a month beyond the account's 3 free dashboards (docs/deploy.md).
    const dashboard = config.dashboard.enabled
      ? new SentinelDashboard(this, 'Dashboard', {
          dashboardName: deployment,
          config,
          deployment,
          poller: this.poller.function,
          alarms: monitoring.alarms,
        })
      : undefined;

    if (props.sink) {
      if ('existingArn' in props.sink) this.sinkArn = props.sink.existingArn;
      else {
        this.sink = new MetricsSink(this, 'MetricsSink', {
          sinkName: `${deployment}-metrics`,
          accounts: props.sink.accounts,
        });
        this.sinkArn = this.sink.sinkArn;
      }
      new CfnOutput(this, 'SinkArn', {
        value: this.sinkArn,
        description: 'Deploy SourceAccountStack into each workload account with this ARN (-c sinkArn=...)',
      });
    }

    new CfnOutput(this, 'PagingTopicArn', { value: this.topics.paging.topicArn });
    new CfnOutput(this, 'NoticeTopicArn', { value: this.topics.notice.topicArn });
    new CfnOutput(this, 'DigestTopicArn', { value: this.topics.digest.topicArn });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    if (dashboard) new CfnOutput(this, 'DashboardName', { value: dashboard.dashboard.dashboardName });
  }
}
