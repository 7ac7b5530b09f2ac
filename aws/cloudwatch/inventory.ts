import {
  type CloudWatchClient,
  DescribeAlarmsCommand,
  GetMetricDataCommand,
  ListMetricsCommand,
  type MetricAlarm,
} from '@aws-sdk/client-cloudwatch';
import type { MetricSpec } from '../../shared/pipeline/query-plan.ts';
import { DESCRIBE_ALARMS_CALLS_PER_SECOND, DESCRIBE_ALARMS_MAX_RECORDS } from './describe-alarms-pacing.ts';
import { RegionPacers, sendPaced } from './paced-send.ts';

/** What this module sends: the doctor's read-only questions to CloudWatch. */
export const IAM_ACTIONS = ['cloudwatch:ListMetrics', 'cloudwatch:GetMetricData', 'cloudwatch:DescribeAlarms'] as const;

/** DescribeAlarms takes at most 100 names, one page of alarms; GetMetricData at most 500 queries. */
const ALARM_NAMES_PER_CALL = DESCRIBE_ALARMS_MAX_RECORDS;
const QUERIES_PER_CALL = 500;
const MINUTE_MS = 60_000;

/** Where a cluster's metrics live: its region's client, and its account when it is a linked one. */
export interface MetricOwner {
  readonly client: CloudWatchClient;
  /** A workload account's metrics, read through the ops account's sink; undefined for the ops account's own. */
  readonly accountId?: string;
}

/** Whether CloudWatch lists a metric, and when its newest datapoint (within `since`) was. */
export interface MetricPresence {
  readonly spec: MetricSpec;
  readonly listed: boolean;
  /** Epoch ms of the newest datapoint since the look-back start, when there is one. */
  readonly newestAt?: number;
}

/** A tripwire alarm as DescribeAlarms reports it. */
export interface AlarmState {
  readonly name: string;
  readonly state: string;
  readonly reason: string;
  readonly updatedAt?: number;
}

/** A spec's dimensions as the API takes them. */
const dimensionsOf = (spec: MetricSpec) => Object.entries(spec.dimensions).map(([Name, Value]) => ({ Name, Value }));

/** The metric's dimensions as a key, whatever their order. */
const dimensionKey = (dimensions: readonly { Name?: string; Value?: string }[]) =>
  JSON.stringify(dimensions.map(({ Name, Value }) => [Name, Value]).sort());

/**
 * Lists each metric (ListMetrics with the metric's own namespace, name and dimensions, through the sink for a linked
 * account) and keeps only an exact match of its dimensions, which is what GetMetricData reads: ListMetrics also
 * returns metrics that carry more dimensions than the filter names.
 */
async function listed(owner: MetricOwner, spec: MetricSpec): Promise<boolean> {
  const wanted = dimensionKey(dimensionsOf(spec));
  let nextToken: string | undefined;
  do {
    const page = await owner.client.send(
      new ListMetricsCommand({
        Namespace: spec.namespace,
        MetricName: spec.metricName,
        Dimensions: dimensionsOf(spec),
        ...(owner.accountId && { IncludeLinkedAccounts: true, OwningAccount: owner.accountId }),
        ...(nextToken && { NextToken: nextToken }),
      }),
    );
    if ((page.Metrics ?? []).some((metric) => dimensionKey(metric.Dimensions ?? []) === wanted)) return true;
    nextToken = page.NextToken;
  } while (nextToken);
  return false;
}

/** Whether CloudWatch lists any metric of the namespace for the cluster (Container Insights is on). */
export async function namespaceReports(owner: MetricOwner, namespace: string, cluster: string): Promise<boolean> {
  const page = await owner.client.send(
    new ListMetricsCommand({
      Namespace: namespace,
      Dimensions: [{ Name: 'ClusterName', Value: cluster }],
      ...(owner.accountId && { IncludeLinkedAccounts: true, OwningAccount: owner.accountId }),
    }),
  );
  return (page.Metrics ?? []).length > 0;
}

/**
 * Which of `specs` exist, and the newest datapoint of each since `since`: one ListMetrics per metric, then one
 * GetMetricData (newest first, one-minute periods) for those listed.
 */
export async function metricPresence(
  owner: MetricOwner,
  specs: readonly MetricSpec[],
  since: number,
  now: number,
): Promise<MetricPresence[]> {
  const found = await Promise.all(specs.map(async (spec) => ({ spec, listed: await listed(owner, spec) })));
  const toRead = found.filter((entry) => entry.listed);
  const newest = new Map<number, number>();
  for (let start = 0; start < toRead.length; start += QUERIES_PER_CALL) {
    const batch = toRead.slice(start, start + QUERIES_PER_CALL);
    let nextToken: string | undefined;
    do {
      const answer = await owner.client.send(
        new GetMetricDataCommand({
          MetricDataQueries: batch.map(({ spec }, index) => ({
            Id: `m${start + index}`,
            ...(owner.accountId && { AccountId: owner.accountId }),
            MetricStat: {
              Metric: {
                Namespace: spec.namespace,
                MetricName: spec.metricName,
                Dimensions: dimensionsOf(spec),
              },
              Period: 60,
              Stat: spec.stat,
            },
          })),
          StartTime: new Date(Math.floor(since / MINUTE_MS) * MINUTE_MS),
          EndTime: new Date(now),
          ScanBy: 'TimestampDescending',
          ...(nextToken && { NextToken: nextToken }),
        }),
      );
      for (const result of answer.MetricDataResults ?? []) {
        const index = Number(result.Id?.slice(1));
        const latest = result.Timestamps?.[0]?.getTime();
        if (latest !== undefined && !(newest.get(index) !== undefined && (newest.get(index) ?? 0) >= latest)) {
          newest.set(index, latest);
        }
      }
      nextToken = answer.NextToken;
    } while (nextToken);
  }
  const indexOf = new Map(toRead.map((entry, index) => [entry, index]));
  return found.map((entry) => {
    const index = indexOf.get(entry);
    const newestAt = index === undefined ? undefined : newest.get(index);
    return { ...entry, ...(newestAt !== undefined && { newestAt }) };
  });
}

/**
 * The doctor's DescribeAlarms calls, paced in each Region at its share of the quota, the one a second the poller's
 * tripwire refresh leaves (describe-alarms-pacing.ts), across every read of the process.
 */
const ALARM_PACERS = new RegionPacers({ callsPerSecond: DESCRIBE_ALARMS_CALLS_PER_SECOND.doctor });

/** The named alarms' states; an alarm that does not exist is left out. */
export async function alarmStates(client: CloudWatchClient, names: readonly string[]): Promise<AlarmState[]> {
  const alarms: MetricAlarm[] = [];
  for (let start = 0; start < names.length; start += ALARM_NAMES_PER_CALL) {
    let nextToken: string | undefined;
    do {
      const page = await sendPaced(
        client,
        ALARM_PACERS.pacerFor(client),
        new DescribeAlarmsCommand({
          AlarmNames: names.slice(start, start + ALARM_NAMES_PER_CALL),
          AlarmTypes: ['MetricAlarm'],
          MaxRecords: DESCRIBE_ALARMS_MAX_RECORDS,
          ...(nextToken && { NextToken: nextToken }),
        }),
      );
      alarms.push(...(page.MetricAlarms ?? []));
      nextToken = page.NextToken;
    } while (nextToken);
  }
  return alarms.map((alarm) => ({
    name: alarm.AlarmName ?? '',
    state: alarm.StateValue ?? 'INSUFFICIENT_DATA',
    reason: alarm.StateReason ?? '',
    ...(alarm.StateUpdatedTimestamp && { updatedAt: alarm.StateUpdatedTimestamp.getTime() }),
  }));
}
