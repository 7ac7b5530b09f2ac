import { readFileSync } from 'node:fs';
import type { Context } from 'aws-lambda';
import type { PollEvent, PollSummary } from '../functions/poller/poll-on-schedule.ts';
import type { ClusterConfig } from '../shared/config/deployment-config.ts';
import { durationMs } from '../shared/engine/duration.ts';
import { tripwireAlarmName } from '../shared/pipeline/alarm-names.ts';
import { parseScenario, type Scenario } from '../shared/scenario/scenario.ts';
import { parseJson } from '../shared/schema-errors.ts';
import { type AwsHarness, TABLE, writeConfig } from './aws-harness.ts';
import { arriveAt } from './handler-clock.ts';
import { webhookFailuresFromPrometheus } from './prometheus-signals.ts';

export { arriveAt };

export type PollHandler = (
  event: PollEvent | ReturnType<typeof alarmEventFor>,
  context: Context,
) => Promise<PollSummary>;

/** A scenario shortened to the steps from `from`, so that a wire test polls hundreds of minutes, not thousands. */
export function trimmedScenario(file: string, from: number): Scenario {
  const raw = parseJson(readFileSync(file, 'utf8'), file) as {
    start: string;
    clusters: Record<string, { signals: Record<string, unknown> }>;
    expect?: unknown;
  };
  const full = parseScenario(raw, file);
  const clusters = Object.fromEntries(
    [...full.clusters].map(([name, series]) => [
      name,
      {
        signals: Object.fromEntries(Object.entries(series).map(([signal, samples]) => [signal, samples?.slice(from)])),
      },
    ]),
  );
  const start = new Date(full.start + from * full.stepSeconds * 1000).toISOString().replace('.000Z', 'Z');
  return parseScenario({ ...raw, start, clusters, maintenance: [], expect: [] }, `${file} (from step ${from})`);
}

/** The configuration of the harness's clusters: EKS profile, one node group, webhook failures as a custom metric. */
export function harnessClusters(names: readonly string[]): ClusterConfig[] {
  return names.map((name) => ({
    name,
    source: {
      profile: 'eks',
      nodeGroups: [`${name}-nodes`],
      containerInsights: true,
      custom: webhookFailuresFromPrometheus(name),
    },
    overrides: {},
  }));
}

/** Set the poller's environment and import its handler, as Lambda would at a cold start. */
export async function loadPoller(
  harness: AwsHarness,
  clusters: readonly ClusterConfig[],
  extra: object = {},
): Promise<PollHandler> {
  Object.assign(process.env, {
    SENTINEL_CONFIG_FILE: writeConfig({ clusters, ...extra }),
    SENTINEL_TABLE: TABLE,
    SENTINEL_PAGING_TOPIC_ARN: harness.topics.paging,
    SENTINEL_NOTICE_TOPIC_ARN: harness.topics.notice,
    SENTINEL_DIGEST_TOPIC_ARN: harness.topics.digest,
    SENTINEL_DEPLOYMENT: 'test',
  });
  const { handler } = await import('../functions/poller/handler.ts');
  return handler as unknown as PollHandler;
}

export type TripwireHandler = (event: ReturnType<typeof alarmEventFor>, context: Context) => Promise<unknown>;

/** The tripwire function, with the environment `loadPoller` set (the same configuration and table). */
export async function loadTripwire(): Promise<TripwireHandler> {
  const { handler } = await import('../functions/tripwire/handler.ts');
  return handler as unknown as TripwireHandler;
}

/** Invoke a poll for step `at` when the schedule would: a few seconds after its scheduled time. */
export function pollAt(poll: PollHandler, at: number, context = contextFor()): Promise<PollSummary> {
  const event = pollEventFor(at);
  arriveAt(Date.parse(event.scheduledTime) + 3_000);
  return poll(event, context);
}

/** Deliver a tripwire alarm's state change at `at` as EventBridge would: a few seconds later. */
export function tripwireAt(
  tripwire: TripwireHandler,
  cluster: string,
  state: 'ALARM' | 'OK',
  at: number,
  context = contextFor(),
): Promise<unknown> {
  arriveAt(at + 5_000);
  return tripwire(alarmEventFor(cluster, state, at), context);
}

let invocation = 0;
/** What a test's Lambda context says is left of the invocation, however long it has run: a poll never runs out of time here. */
const CONTEXT_REMAINING_MS = 50_000;

/** The event EventBridge Scheduler sends for the poll that evaluates step `at` (ingestion lag 2m, one-minute step). */
export function pollEventFor(at: number): PollEvent {
  return { kind: 'poll', scheduledTime: new Date(at + durationMs('2m') + 60_000).toISOString() };
}

/** What EventBridge delivers when a cluster's tripwire alarm (in the harness's `test` deployment) changes state. */
export function alarmEventFor(cluster: string, state: 'ALARM' | 'OK', at: number) {
  const alarmName = tripwireAlarmName('test', cluster);
  return {
    version: '0',
    id: `${alarmName}-${state}-${at}`,
    'detail-type': 'CloudWatch Alarm State Change',
    source: 'aws.cloudwatch',
    account: '111122223333',
    time: new Date(at).toISOString(),
    region: 'eu-west-1',
    resources: [`arn:aws:cloudwatch:eu-west-1:111122223333:alarm:${alarmName}`],
    detail: {
      alarmName,
      state: { value: state, reason: 'Threshold Crossed', timestamp: new Date(at).toISOString() },
    },
  } as const;
}

export function contextFor(requestId = `request-${++invocation}`): Context {
  // A constant: the handlers' clock jumps between arrivals (handler-clock.ts), which a countdown would take as spent.
  return { awsRequestId: requestId, getRemainingTimeInMillis: () => CONTEXT_REMAINING_MS } as Context;
}
