import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Duration } from 'aws-cdk-lib';
import { POLLER_TIMEOUT, TRIPWIRE_LIMITS } from '../infra/ops-stack.ts';
import { DELIVERY_LIMITS } from '../infra/paging-delivery.ts';
import { SHARD_WORKER_LIMITS } from '../infra/shard-workers.ts';
import { loadConfig } from '../shared/config/deployment-config.ts';
import { pollerMemoryMb } from '../shared/digest/cost-model.ts';
import { durationMs } from '../shared/engine/duration.ts';
import { tripwireAlarmName } from '../shared/pipeline/alarm-names.ts';
import { configuredPlan } from '../shared/pipeline/build-plan.ts';
import { signalSources } from '../shared/pipeline/query-plan.ts';
import { SHARD_SIZE, SHARD_WORKERS } from '../shared/pipeline/shards.ts';
import { formatCompactSeries, parseCompactSeries } from '../shared/scenario/compact-series.ts';
import { ScenarioTripwires } from '../shared/scenario/replay.ts';
import { parseScenario, type Scenario } from '../shared/scenario/scenario.ts';
import { parseJson } from '../shared/schema-errors.ts';
import { putScenario, startAwsHarness, TABLE, writeConfig } from './aws-harness.ts';
import { startDynamoDbFaultProxy } from './dynamodb-fault-proxy.ts';
import { type FunctionContainer, type FunctionLimits, type Invocation, startContainer } from './function-container.ts';
import { arriveAt } from './handler-clock.ts';
import { startPagerDutyServer } from './pagerduty-server.ts';
import { alarmEventFor, harnessClusters, pollEventFor } from './poller-harness.ts';
import { startSecretsManagerServer } from './secrets-manager-server.ts';
import { type QueuedMessage, SqsServer } from './sqs-server.ts';
import { dyingAtFirstOutboxWrite, type FaultPlan, losingFirstClaimAndCommitAnswers } from './store-faults.ts';

const limitsOf = ({ memorySize, timeout }: { memorySize: number; timeout: Duration }): FunctionLimits => ({
  memoryMb: memorySize,
  timeoutMs: timeout.toMilliseconds(),
});

/**
 * Each function's memory and timeout in a deployment of `clusters`, as the stacks deploy it (infra/ops-stack.ts and
 * the constructs beside it): the poller's memory grows with the fleet. `pollerTimeoutMs` stands in for the poller's
 * when a run stands for a larger fleet (runFleetOutage).
 */
export function functionLimits(clusters: number, pollerTimeoutMs?: number): Record<FunctionName, FunctionLimits> {
  const poller = limitsOf({ memorySize: pollerMemoryMb(clusters), timeout: POLLER_TIMEOUT });
  return {
    poller: pollerTimeoutMs ? { ...poller, timeoutMs: pollerTimeoutMs } : poller,
    'shard worker': limitsOf(SHARD_WORKER_LIMITS),
    tripwire: limitsOf(TRIPWIRE_LIMITS),
    delivery: limitsOf(DELIVERY_LIMITS),
  };
}
export const FUNCTION_NAMES = ['poller', 'shard worker', 'tripwire', 'delivery'] as const;
export type FunctionName = (typeof FUNCTION_NAMES)[number];

const ENTRIES: Record<FunctionName, string> = {
  poller: 'functions/poller/handler.ts',
  'shard worker': 'functions/shard-worker/handler.ts',
  tripwire: 'functions/tripwire/handler.ts',
  delivery: 'functions/delivery/handler.ts',
};

/** The faults a fleet outage is run with, each striking the poller's DynamoDB conversation in the middle of a step. */
export const FLEET_OUTAGE_FAULTS = [
  [
    'with the poll that pages killed between its write-ahead record and its application',
    dyingAtFirstOutboxWrite,
    ['die at PutItem'],
  ],
  [
    'with the answers to a step claim and a write-ahead commit lost',
    losingFirstClaimAndCommitAnswers,
    ['lose-answer at UpdateItem', 'lose-answer at PutItem'],
  ],
] as const;

/** The cluster outside the fleet whose outage comes an hour after the fleet's ended. */
export const LONE_CLUSTER = 'lone-cluster';
const HOUR_STEPS = 60;
const STEP_MS = 60_000;

/** The paging subscriber: one PagerDuty service, its routing key in Secrets Manager. */
const PAGERDUTY = {
  secretName: 'sentinel/pagerduty',
  jsonField: 'routingKey',
  routingKey: 'R0UTINGKEY0000000000000000000001',
};

/**
 * A deployment of `size` clusters: every one but the last goes through dev-a's webhook outage of
 * scenarios/fleet-webhook-outage.json in the same minute (steps 75 to 114), and the last, the lone cluster, through
 * the same outage an hour after the fleet's ended. One series is shared by the fleet's clusters: the fleet costs the
 * scenario no memory of its own.
 */
export function fleetOutageScenario(size: number): Scenario {
  const file = fileURLToPath(new URL('../scenarios/fleet-webhook-outage.json', import.meta.url));
  const raw = parseJson(readFileSync(file, 'utf8'), file) as {
    clusters: Record<string, { signals: Record<string, string> }>;
  };
  const template = raw.clusters['dev-a']?.signals ?? {};
  // The same outage, HOUR_STEPS + 40 steps later (an hour after it ended): healthy until then.
  const shift = HOUR_STEPS + 40;
  const later = Object.fromEntries(
    Object.entries(template).map(([signal, series]) => {
      const samples = parseCompactSeries(series);
      const shifted = [...Array(shift).fill(samples[0]), ...samples.slice(0, samples.length - shift)];
      return [signal, formatCompactSeries(shifted)];
    }),
  );
  const scenario = parseScenario(
    {
      ...raw,
      clusters: { [fleetClusterName(0)]: { signals: template }, [LONE_CLUSTER]: { signals: later } },
      maintenance: [],
      expect: [],
    },
    file,
  );
  const shared = scenario.clusters.get(fleetClusterName(0));
  const lone = scenario.clusters.get(LONE_CLUSTER);
  if (!shared || !lone) throw new Error('the scenario lost its clusters');
  const clusters = new Map([
    ...Array.from({ length: size - 1 }, (_, i) => [fleetClusterName(i), shared] as const),
    [LONE_CLUSTER, lone],
  ]);
  return { ...scenario, clusters };
}

export function fleetClusterName(index: number): string {
  return `fleet-${String(index).padStart(5, '0')}`;
}

/** One invocation of one of the functions, for the step whose poll it belongs to. */
export interface FleetInvocation extends Invocation {
  readonly function: FunctionName;
  readonly step: number;
  /** The function's memory and timeout in this deployment. */
  readonly limits: FunctionLimits;
}

export interface FleetOutageRun {
  /** The subjects of what reached the paging and notice topics, in order. */
  readonly subjects: readonly string[];
  /** Each message of the paging topic, with the invocation of the poller (or Lambda's retry of it) that published it. */
  readonly paged: readonly PagedMessage[];
  /** PagerDuty's incidents, in the order they opened: their status and how many trigger events each took. */
  readonly pagerDuty: readonly { readonly status: string; readonly triggers: number }[];
  readonly invocations: readonly FleetInvocation[];
  /** The faults that struck, in order. */
  readonly struck: readonly string[];
  /** The shard messages the poller sent: none unless the step was larger than a shard. */
  readonly shardsSent: number;
  readonly dynalitePeakRssMb?: number;
}

/** A message of the paging topic, and the poller's invocation that published it. */
export interface PagedMessage {
  readonly subject: string;
  /** The step of the poll, or of the poll Lambda retried, that published it. */
  readonly step: number;
  /** The attempt: 0 for the scheduled invocation, 1 and 2 for Lambda's retries of it. */
  readonly attempt: number;
  /**
   * When it left, on the schedule's clock: the time the invocation that published it arrived, and how long into it
   * SNS took the message (the loopback SNS notes when, on the wall clock).
   */
  readonly publishedAt: number;
}

/** Whether an invocation ran within its function's timeout and memory. */
export function withinLimits(invocation: FleetInvocation): boolean {
  const { limits } = invocation;
  return invocation.ms < limits.timeoutMs && invocation.peakRssMb < limits.memoryMb;
}

/**
 * Run the fleet outage of a deployment of `clusters` clusters (fleetOutageScenario) through the deployed functions, each in a container of its own with the
 * function's memory (support/function-container.ts), over DynamoDB (dynalite, in a process of its own), the loopback
 * CloudWatch serving every cluster's metrics and the tripwire alarms' states, SNS, the shard queue, Secrets Manager
 * and PagerDuty. This process plays the AWS services that invoke them, as the stacks wire them:
 *
 * - EventBridge Scheduler invokes the poller every minute, a few seconds after its scheduled time, and Lambda retries
 *   a failed invocation twice, one and then two minutes later;
 * - each tripwire alarm's state change (ALARM when the scenario's data breaches its thresholds, OK when it no longer
 *   does) reaches the tripwire function, side by side as EventBridge delivers a burst, and CloudWatch holds the state;
 * - a fleet larger than one shard (`shardSize`: the deployment's, unless a test sets a smaller one) has the shard
 *   workers, which the queue's event source mapping invokes one shard at a time, at most SHARD_WORKERS at once;
 * - the paging topic's messages reach the delivery function through its queue, ten a batch.
 *
 * The polls run minute by minute until the fleet's page has been delivered, from the end of the outage until its
 * resolve has, and from before the lone cluster's outage until its page has: the minutes in between repeat what the
 * minute before did, and only cost time. `faults` strikes the poller's DynamoDB conversation on the wire.
 */
export async function runFleetOutage(options: {
  readonly clusters: number;
  readonly faults?: FaultPlan;
  readonly shardSize?: number;
  readonly onInvocation?: (invocation: FleetInvocation) => void;
  /** A folder each function's log lines go to, a file per function; by default they are dropped. */
  readonly logDirectory?: string;
  /**
   * A proxy every function reaches DynamoDB through, started in front of dynalite's endpoint (the throughput proxy,
   * support/dynamodb-throughput-proxy.ts, metering request units and, given limits, holding DynamoDB's line); the
   * poller's faults, when it has some, strike between it and the poller.
   */
  readonly interposeDynamoDb?: (dynalite: string) => Promise<{ readonly endpoint: string; close(): Promise<void> }>;
  /** The write units a second the interposed table serves a partition, when it holds a line other than DynamoDB's. */
  readonly partitionWriteUnits?: number;
  /**
   * The poller's timeout, when the run stands for a larger fleet whose evaluation leaves the poller less of its time
   * to write than this fleet's does (bench/fleet-outage.ts, the throttled case).
   */
  readonly pollerTimeoutMs?: number;
}): Promise<FleetOutageRun> {
  const scenario = fleetOutageScenario(options.clusters);
  const limits = functionLimits(options.clusters, options.pollerTimeoutMs);
  const names = [...scenario.clusters.keys()];
  const clusters = harnessClusters(names);
  const shardSize = options.shardSize ?? (names.length > SHARD_SIZE ? SHARD_SIZE : undefined);
  const config = {
    clusters,
    subscriptions: {
      paging: [
        {
          subscribers: [
            {
              protocol: 'pagerduty',
              routingKeySecret: { secretName: PAGERDUTY.secretName, jsonField: PAGERDUTY.jsonField },
            },
          ],
        },
      ],
    },
  };

  const harness = await startAwsHarness({ dynamoInChildProcess: true });
  const interposed = await options.interposeDynamoDb?.(harness.dynamoEndpoint);
  // The functions' containers take this process's environment, which the harness pointed at dynalite.
  if (interposed) process.env.AWS_ENDPOINT_URL_DYNAMODB = interposed.endpoint;
  const [sqs, pagerduty, secrets] = await Promise.all([
    new SqsServer().listen(),
    startPagerDutyServer(),
    startSecretsManagerServer(),
  ]);
  secrets.putSecret(PAGERDUTY.secretName, JSON.stringify({ [PAGERDUTY.jsonField]: PAGERDUTY.routingKey }));
  pagerduty.routingKeys.add(PAGERDUTY.routingKey);
  const shardQueue = sqs.createQueue('sentinel-shards');
  const deliveryQueue = sqs.createQueue('sentinel-delivery');
  await loadMetrics(harness.cloudwatch, scenario, clusters);
  const tripwires = await tripwireChanges(scenario, config);

  const containers: FunctionContainer[] = [];
  const env = {
    SENTINEL_CONFIG_FILE: writeConfig(config),
    SENTINEL_TABLE: TABLE,
    SENTINEL_PAGING_TOPIC_ARN: harness.topics.paging,
    SENTINEL_NOTICE_TOPIC_ARN: harness.topics.notice,
    SENTINEL_DEPLOYMENT: 'test',
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
    SENTINEL_PAGERDUTY_ENDPOINT: pagerduty.endpoint,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...(options.partitionWriteUnits && { SENTINEL_PARTITION_WRITE_UNITS: String(options.partitionWriteUnits) }),
  };
  const start = async (name: FunctionName, extra: Record<string, string> = {}) => {
    const container = await startContainer({
      entry: ENTRIES[name],
      limits: limits[name],
      env: { ...env, ...extra },
      ...(options.logDirectory && { logFile: join(options.logDirectory, `${name.replace(' ', '-')}.log`) }),
    });
    containers.push(container);
    return container;
  };
  /** A function's warm container, replaced by a new one (a cold start) when it died, as Lambda replaces it. */
  const slot = async (name: FunctionName, extra: Record<string, string> = {}) => {
    let current = start(name, extra);
    await current;
    return {
      kill: () => void current.then((container) => container.kill()),
      container: async () => {
        // Side-by-side invocations that find it dead share the one that replaces it.
        const seen = current;
        if (!(await seen).alive && current === seen) current = start(name, extra);
        return current;
      },
    };
  };
  const poller: { kill(): void } = { kill: () => pollerSlot?.kill() };
  const proxy =
    options.faults &&
    (await startDynamoDbFaultProxy({
      target: interposed?.endpoint ?? harness.dynamoEndpoint,
      plan: options.faults,
      onDie: () => poller.kill(),
    }));
  const pollerEnv = {
    ...(shardSize !== undefined && { SENTINEL_SHARD_QUEUE_URL: shardQueue, SENTINEL_SHARD_SIZE: String(shardSize) }),
    ...(proxy && { AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint }),
  };
  const workerCount = shardSize === undefined ? 0 : Math.min(SHARD_WORKERS, Math.ceil(names.length / shardSize));
  const [pollerSlot, tripwire, delivery, ...workers] = await Promise.all([
    slot('poller', pollerEnv),
    slot('tripwire'),
    slot('delivery'),
    ...Array.from({ length: workerCount }, () => slot('shard worker')),
  ]);

  const invocations: FleetInvocation[] = [];
  const record = (name: FunctionName, step: number, invocation: Invocation) => {
    const entry = { function: name, step, limits: limits[name], ...invocation };
    invocations.push(entry);
    options.onInvocation?.(entry);
  };
  let shardsSent = 0;
  let requests = 0;

  /** Invoke a shard worker for each shard message, one at a time each, until the poll is over and the queue empty. */
  const workOffShards = async (step: number, polling: Promise<unknown>) => {
    let over = false;
    void polling.finally(() => {
      over = true;
    });
    const waiting: QueuedMessage[] = [];
    const run = async (worker: Awaited<ReturnType<typeof slot>>) => {
      for (;;) {
        const message = waiting.shift();
        if (message === undefined) {
          if (over && waiting.length === 0) return;
          waiting.push(...sqs.drain(shardQueue));
          if (waiting.length === 0) await sleep(20);
          continue;
        }
        shardsSent++;
        const event = SqsServer.eventOf(shardQueue, [message]);
        const container = await worker.container();
        record('shard worker', step, await container.invoke(event, Date.now(), `shard-${++requests}`));
      }
    };
    await Promise.all(workers.map(run));
  };

  /** What the paging topic's subscription puts in the delivery queue: each message with a `kind`, raw. */
  let forwarded = 0;
  const paged: PagedMessage[] = [];
  const deliver = async (step: number, attempt: number, publishedAt: (wallTime: number) => number) => {
    const messages = harness.sns.published.slice(forwarded).filter((m) => m.topicArn === harness.topics.paging);
    forwarded = harness.sns.published.length;
    paged.push(
      ...messages.map((m) => ({ step, attempt, publishedAt: publishedAt(m.at.getTime()), subject: m.subject ?? '' })),
    );
    const queued = messages
      .filter((m) => m.messageAttributes.kind !== undefined)
      .map((m): QueuedMessage => {
        const body = (JSON.parse(m.message) as { default: string }).default;
        return { messageId: m.messageId, body, md5: createHash('md5').update(body).digest('hex'), sentAt: Date.now() };
      });
    for (let i = 0; i < queued.length; i += 10) {
      const event = SqsServer.eventOf(deliveryQueue, queued.slice(i, i + 10));
      const container = await delivery.container();
      record('delivery', step, await container.invoke(event, Date.now(), `delivery-${++requests}`));
    }
  };

  /** The tripwire state changes up to `until`, side by side, each also held by CloudWatch as its alarm's state. */
  const changeTripwires = async (until: number) => {
    while (tripwires[0] && tripwires[0].at + 5_000 <= until) {
      const change = tripwires.shift();
      if (!change) break;
      const changedAt = change.changedAt ?? change.at;
      const step = Math.round((changedAt - scenario.start) / STEP_MS);
      const attempt = change.attempt ?? 0;
      for (const cluster of attempt === 0 ? change.clusters : []) {
        harness.cloudwatch.setAlarm({
          AlarmName: tripwireAlarmName('test', cluster),
          StateValue: change.state,
          StateTransitionedTimestamp: new Date(changedAt),
        });
      }
      const queue = [...change.clusters];
      const failed: string[] = [];
      const side = async () => {
        for (let cluster = queue.shift(); cluster !== undefined; cluster = queue.shift()) {
          const event = alarmEventFor(cluster, change.state, changedAt);
          const container = await tripwire.container();
          const invocation = await container.invoke(event, change.at + 5_000, `tripwire-${++requests}`);
          record('tripwire', step, invocation);
          if (invocation.error !== undefined) failed.push(cluster);
        }
      };
      await Promise.all(Array.from({ length: TRIPWIRE_BURST }, side));
      // Lambda retries a failed asynchronous invocation twice, one and then two minutes later.
      if (failed.length > 0 && attempt < 2) {
        const retry = { ...change, at: change.at + (attempt + 1) * STEP_MS, changedAt, attempt: attempt + 1 };
        const later = tripwires.findIndex((next) => next.at > retry.at);
        tripwires.splice(later < 0 ? tripwires.length : later, 0, { ...retry, clusters: failed });
      }
    }
  };

  /** The poll of `step` and Lambda's retries of it, each at the time it arrives. */
  const retries: { at: number; step: number; attempt: number }[] = [];
  const invokePoll = async (step: number, arrival: number, attempt: number) => {
    await changeTripwires(arrival);
    arriveAt(arrival);
    const event = pollEventFor(scenario.start + step * STEP_MS);
    // The wall clock, as the loopback SNS notes a message's time: this process's Date.now is the schedule's.
    const startedWall = performance.timeOrigin + performance.now();
    const polling = (await pollerSlot.container()).invoke(event, arrival, `poll-${step}-${attempt}`);
    await workOffShards(step, polling);
    const invocation = await polling;
    record('poller', step, invocation);
    if (invocation.error !== undefined && attempt < 2) {
      retries.push({ at: arrival + (attempt + 1) * STEP_MS, step, attempt: attempt + 1 });
    }
    await deliver(step, attempt, (wallTime) => arrival + (wallTime - startedWall));
  };
  /** Poll minute by minute from `from` to `to`, until what the paging topic has sent (its subjects) satisfies `until`. */
  const pollSteps = async (from: number, to: number, until: (subjects: readonly string[]) => boolean) => {
    for (let step = from; step <= to && !until(sent().map((m) => m.subject ?? '')); step++) {
      const arrival = Date.parse(pollEventFor(scenario.start + step * STEP_MS).scheduledTime) + 3_000;
      for (let retry = retries.shift(); retry; retry = retries.shift()) {
        if (retry.at > arrival) {
          retries.unshift(retry);
          break;
        }
        await invokePoll(retry.step, retry.at, retry.attempt);
      }
      await invokePoll(step, arrival, 0);
    }
  };
  const sent = () => harness.sns.published.filter((m) => m.topicArn === harness.topics.paging);

  let run: Omit<FleetOutageRun, 'dynalitePeakRssMb'>;
  let dynalitePeakRssMb: number | undefined;
  try {
    // The outage begins at step 75: the page; it ends after step 114: the resolve, after the hold-down; then the lone
    // cluster's outage, an hour after the fleet's ended.
    // Each window ends when its message has been delivered; its last step leaves room for a page or a resolve that
    // throttling or faults make later.
    await pollSteps(74, 95, (subjects) => subjects.some((subject) => subject.startsWith('[PAGE]')));
    await pollSteps(115, 150, (subjects) => subjects.some((subject) => subject.startsWith('[RESOLVED]')));
    await pollSteps(115 + HOUR_STEPS, 115 + HOUR_STEPS + 8, (subjects) =>
      subjects.some((subject) => subject.includes(LONE_CLUSTER)),
    );
    run = {
      subjects: harness.sns.published.map((m) => m.subject ?? ''),
      paged,
      pagerDuty: pagerduty.incidents.map((i) => ({ status: i.status, triggers: i.triggers.length })),
      invocations,
      struck: proxy?.struck ?? [],
      shardsSent,
    };
  } finally {
    // A run that failed stops dynalite and every server too, so that the test or the benchmark's child can end.
    await Promise.all(containers.map((c) => c.close()));
    await Promise.all([sqs.close(), pagerduty.close(), secrets.close(), proxy?.close(), interposed?.close()]);
    if (interposed) process.env.AWS_ENDPOINT_URL_DYNAMODB = harness.dynamoEndpoint;
    dynalitePeakRssMb = (await harness.close()).peakRssMb;
  }
  return { ...run, ...(dynalitePeakRssMb !== undefined && { dynalitePeakRssMb }) };
}

/** Tripwire events in flight at once: EventBridge delivers a burst side by side. */
const TRIPWIRE_BURST = 16;

/**
 * The scenario's metrics in the loopback CloudWatch: the fleet's first cluster and the lone cluster through
 * PutMetricData, and every other cluster of the fleet as the same series under its own dimensions.
 */
async function loadMetrics(
  cloudwatch: Awaited<ReturnType<typeof startAwsHarness>>['cloudwatch'],
  scenario: Scenario,
  clusters: ReturnType<typeof harnessClusters>,
): Promise<void> {
  const [first, ...rest] = clusters;
  const lone = rest.pop();
  if (!first || !lone) throw new Error('a fleet outage needs a fleet and the lone cluster');
  await putScenario(scenario, [first, lone]);
  const series = scenario.clusters.get(first.name) ?? {};
  const template = signalSources(first);
  for (const cluster of rest) {
    signalSources(cluster).forEach((source, index) => {
      const from = template[index]?.metrics[0];
      const to = source.metrics[0];
      if (!from || !to || series[source.signal] === undefined) return;
      const dimensions = (metric: typeof to) =>
        Object.entries(metric.dimensions).map(([Name, Value]) => ({ Name, Value }));
      cloudwatch.alias(to.namespace, to.metricName, dimensions(from), dimensions(to));
    });
  }
}

/**
 * The state changes of the tripwire alarms over the scenario, oldest first: a cluster's alarm goes to ALARM when a
 * minute's data breaches its thresholds and to OK when it no longer does, as the deployed alarm evaluates the same
 * data (ScenarioTripwires). The fleet shares one series, so its alarms change together. Every alarm starts OK.
 */
async function tripwireChanges(scenario: Scenario, config: object): Promise<TripwireChange[]> {
  const fleet = [...scenario.clusters.keys()].filter((name) => name !== LONE_CLUSTER);
  const first = fleet[0] ?? '';
  const emulated = {
    ...scenario,
    clusters: new Map([...scenario.clusters].filter(([name]) => name === first || name === LONE_CLUSTER)),
  };
  const loaded = loadConfig({ ...config, clusters: harnessClusters([first, LONE_CLUSTER]) }, 'fleet outage');
  const plan = configuredPlan({ ...loaded, region: 'us-east-1' });
  const alarms = new ScenarioTripwires(emulated, plan.cadence.tripwire, loaded.config);
  // The poll of a step reads its data the ingestion lag after it; the alarm that reads the same data changes state
  // then too, so the poll of the step that breached is the first to see the tripwire armed.
  const ingestionLagMs = durationMs(loaded.config.poll.ingestionLag);
  const changes: TripwireChange[] = [];
  let before = new Set<string>();
  for (let step = 1; step < scenario.steps; step++) {
    const at = scenario.start + step * STEP_MS;
    const now = (await alarms.armed(at)).byAlarm;
    for (const [cluster, members] of [
      [first, fleet],
      [LONE_CLUSTER, [LONE_CLUSTER]],
    ] as const) {
      if (now.has(cluster) !== before.has(cluster)) {
        changes.push({ at: at + ingestionLagMs, state: now.has(cluster) ? 'ALARM' : 'OK', clusters: members });
      }
    }
    before = new Set(now);
  }
  return changes;
}

interface TripwireChange {
  /** When the event reaches the tripwire function. */
  readonly at: number;
  /** When the alarm changed state, for Lambda's retries of the event: `at` otherwise. */
  readonly changedAt?: number;
  /** 1 and 2 for Lambda's retries of the event. */
  readonly attempt?: number;
  readonly state: 'ALARM' | 'OK';
  readonly clusters: readonly string[];
}
