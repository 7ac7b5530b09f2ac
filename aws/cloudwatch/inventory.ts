import {
  type CloudWatchClient,
  DescribeAlarmsCommand,
  GetMetricDataCommand,
  ListMetricsCommand,
  type MetricAlarm,
} from '@aws-sdk/client-cloudwatch';
import {
  type ListingPlan,
  type ListingQuery,
  listingPlans,
  metricKey,
  type WantedMetric,
} from '../../shared/doctor/metric-listing.ts';
import type { MetricSpec } from '../../shared/pipeline/query-plan.ts';
import { mapLimited } from '../concurrency.ts';
import { RegionPacers, sendPaced } from '../paced-send.ts';
import { DESCRIBE_ALARMS_CALLS_PER_SECOND, DESCRIBE_ALARMS_MAX_RECORDS } from './describe-alarms-pacing.ts';
import {
  DATAPOINTS_PER_SECOND,
  datapointTier,
  GET_METRIC_DATA_CALLS_PER_SECOND,
  queriesPerCall,
} from './metric-source.ts';

/** What this module sends: the doctor's read-only questions to CloudWatch. */
export const IAM_ACTIONS = ['cloudwatch:ListMetrics', 'cloudwatch:GetMetricData', 'cloudwatch:DescribeAlarms'] as const;

/**
 * ListMetrics calls started per second in each Region. CloudWatch allows "Rate of ListMetrics requests: 25 per
 * second" per account and Region, adjustable
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html), to every caller of the
 * account at once. The doctor is the project's only caller; it leaves 5 to the people and tools that browse the ops
 * account's metrics meanwhile (the console's metric pickers, a Grafana data source), whose calls its pacer cannot see.
 * At 20 a second, the listings of 10,000 clusters in one Region (15 metric names, 20 pages of 500 each) take 17 s.
 */
export const LIST_METRICS_CALLS_PER_SECOND = 20;

/**
 * The doctor's share of GetMetricData's quotas in each Region: the calls the poller leaves it
 * (GET_METRIC_DATA_CALLS_PER_SECOND), and half of each datapoint tier (DATAPOINTS_PER_SECOND), which the poller's
 * pacer, in a process of its own, counts on whole: a doctor run beside a fleet-wide full read leaves the poller at
 * least half, and each throttled call of either is retried by the SDK.
 */
const GET_METRIC_DATA_SHARE = {
  callsPerSecond: GET_METRIC_DATA_CALLS_PER_SECOND.doctor,
  budgets: { recent: DATAPOINTS_PER_SECOND.recent / 2, older: DATAPOINTS_PER_SECOND.older / 2 },
} as const;

const MINUTE_MS = 60_000;

/**
 * How far back the newest datapoints are looked for first. EKS publishes each of its metrics every minute
 * (https://docs.aws.amazon.com/eks/latest/userguide/cloudwatch.html: "Every metric listed has a frequency of one
 * minute"), so the newest datapoint of a metric that reports is minutes old: 15 one-minute datapoints a metric, of
 * the recent tier, find it, and only the metrics with none there are read over the rest of the look-back, 1,425
 * datapoints each for a day, of the older tier. Either way the newest datapoint found is the newest of the look-back.
 */
const NEWEST_FIRST_MS = 15 * MINUTE_MS;

/** ListMetrics questions, and GetMetricData calls, in flight at once in a Region: as many as a second starts. */
const LISTINGS_IN_FLIGHT = LIST_METRICS_CALLS_PER_SECOND;
const READS_IN_FLIGHT = GET_METRIC_DATA_SHARE.callsPerSecond;
/** DescribeAlarms takes at most 100 names, one page of alarms. */
const ALARM_NAMES_PER_CALL = DESCRIBE_ALARMS_MAX_RECORDS;

/** Where a cluster's metrics live: its region's client, and its account when it is a linked one. */
export interface MetricOwner {
  readonly client: CloudWatchClient;
  /** A workload account's metrics, read through the ops account's sink; undefined for the ops account's own. */
  readonly accountId?: string;
}

/** One cluster's question: its metrics, and those whose listing alone says something (Container Insights is on). */
export interface PresenceQuestion {
  readonly owner: MetricOwner;
  /** Listed, and their newest datapoint read. */
  readonly metrics: readonly MetricSpec[];
  /** Listed only. */
  readonly probes?: readonly MetricSpec[];
}

/** Whether CloudWatch lists a metric, and when its newest datapoint (within `since`) was. */
export interface MetricPresence {
  readonly spec: MetricSpec;
  readonly listed: boolean;
  /** Epoch ms of the newest datapoint since the look-back start, when there is one. */
  readonly newestAt?: number;
}

/** What CloudWatch says of one question's metrics and probes, in their order. */
export interface PresenceAnswer {
  readonly metrics: MetricPresence[];
  readonly probes: boolean[];
}

/**
 * How far `metricPresence` has got, counted as it goes, for a command's progress line: the metric names it lists
 * (one a Region and whose metrics: the ops account's own or the linked accounts') and the listed metrics whose newest
 * datapoint it reads (a metric without one in the last 15 minutes is counted again for the rest of the day).
 */
export interface PresenceProgress {
  names: number;
  namesListed: number;
  metrics: number;
  metricsRead: number;
}

/** A tripwire alarm as DescribeAlarms reports it. */
export interface AlarmState {
  readonly name: string;
  readonly state: string;
  readonly reason: string;
  readonly updatedAt?: number;
}

/** A spec's dimensions as the API takes them. */
const dimensionsOf = (dimensions: Readonly<Record<string, string>>) =>
  Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value }));

/**
 * The doctor's calls, each paced in its Region across every read of the process at its share of the quota:
 * DescribeAlarms at the one a second the poller's tripwire refresh leaves (describe-alarms-pacing.ts).
 */
const LIST_PACERS = new RegionPacers({ callsPerSecond: LIST_METRICS_CALLS_PER_SECOND });
const READ_PACERS = new RegionPacers(GET_METRIC_DATA_SHARE);
const ALARM_PACERS = new RegionPacers({ callsPerSecond: DESCRIBE_ALARMS_CALLS_PER_SECOND.doctor });

/**
 * Which metrics of every question CloudWatch lists, and the newest datapoint since `since` of those listed, for a
 * whole fleet at once. Each Region lists its metrics name by name across the Region (`listingPlans`: a page per 500
 * clusters a name, never more than twice the calls of listing each metric on its own), paced at
 * LIST_METRICS_CALLS_PER_SECOND; then reads the newest datapoint of each metric listed (one-minute periods), first
 * over the last NEWEST_FIRST_MS, then over the rest of the look-back for the metrics without a datapoint there, many
 * clusters' queries a call (AccountId on each), in calls sized and paced to the doctor's share of GetMetricData's
 * quotas. `progress` counts the names listed and the metrics read as it goes.
 */
export async function metricPresence(
  questions: readonly PresenceQuestion[],
  since: number,
  now: number,
  progress: PresenceProgress = { names: 0, namesListed: 0, metrics: 0, metricsRead: 0 },
): Promise<PresenceAnswer[]> {
  const clients = [...new Set(questions.map((q) => q.owner.client))];
  const listedIn = new Map(
    await Promise.all(
      clients.map(async (client) => {
        const inRegion = questions.filter((q) => q.owner.client === client);
        const wanted = inRegion.flatMap(({ owner, metrics, probes = [] }) =>
          [...metrics, ...probes].map((spec): WantedMetric => ({ account: owner.accountId, spec })),
        );
        return [client, await listed(client, wanted, progress)] as const;
      }),
    ),
  );
  const isListed = ({ client, accountId }: MetricOwner, spec: MetricSpec) =>
    listedIn.get(client)?.has(metricKey(accountId, spec.namespace, spec.metricName, spec.dimensions)) ?? false;
  const reads = questions.map(({ owner, metrics }) =>
    metrics.map((spec): ToRead | undefined => (isListed(owner, spec) ? { owner, spec } : undefined)),
  );
  const toRead = reads.flat().filter((read) => read !== undefined);
  const recentFrom = Math.max(since, now - NEWEST_FIRST_MS);
  await readNewest(toRead, recentFrom, now, progress);
  if (recentFrom > since) {
    await readNewest(
      toRead.filter((read) => read.newestAt === undefined),
      since,
      recentFrom,
      progress,
    );
  }
  return questions.map(({ owner, metrics, probes = [] }, question) => ({
    metrics: metrics.map((spec, index) => {
      const read = reads[question]?.[index];
      return {
        spec,
        listed: read !== undefined,
        ...(read?.newestAt !== undefined && { newestAt: read.newestAt }),
      };
    }),
    probes: probes.map((spec) => isListed(owner, spec)),
  }));
}

/**
 * The keys (metricKey) of the wanted metrics of one Region that CloudWatch lists, asked as `listingPlans` says, the
 * calls paced at LIST_METRICS_CALLS_PER_SECOND.
 */
async function listed(
  client: CloudWatchClient,
  wanted: readonly WantedMetric[],
  progress: PresenceProgress,
): Promise<Set<string>> {
  const wantedKeys = new Set(
    wanted.map(({ account, spec }) => metricKey(account, spec.namespace, spec.metricName, spec.dimensions)),
  );
  const found = new Set<string>();
  const pacer = LIST_PACERS.pacerFor(client);
  /** Lists `query`, at most `pages` pages, keeping the wanted metrics it finds; whether it listed every page. */
  const list = async (query: ListingQuery, pages: number): Promise<boolean> => {
    let nextToken: string | undefined;
    for (let page = 0; page < pages; page++) {
      const answer = await sendPaced(
        client,
        pacer,
        new ListMetricsCommand({
          Namespace: query.namespace,
          MetricName: query.metricName,
          ...(query.dimensions && { Dimensions: dimensionsOf(query.dimensions) }),
          ...(query.linked && { IncludeLinkedAccounts: true }),
          ...(query.owningAccount && { OwningAccount: query.owningAccount }),
          ...(nextToken && { NextToken: nextToken }),
        }),
      );
      (answer.Metrics ?? []).forEach((metric, index) => {
        const account = query.linked ? (answer.OwningAccounts?.[index] ?? query.owningAccount) : undefined;
        const dimensions = Object.fromEntries((metric.Dimensions ?? []).map((d) => [d.Name ?? '', d.Value ?? '']));
        const key = metricKey(account, metric.Namespace ?? '', metric.MetricName ?? '', dimensions);
        if (wantedKeys.has(key)) found.add(key);
      });
      nextToken = answer.NextToken;
      if (!nextToken) return true;
    }
    return false;
  };
  const plans = listingPlans(wanted);
  progress.names += plans.length;
  await mapLimited(plans, LISTINGS_IN_FLIGHT, async ({ across, pages, each }: ListingPlan) => {
    if (!(await list(across, pages))) {
      await mapLimited(
        each.filter(({ key }) => !found.has(key)),
        LISTINGS_IN_FLIGHT,
        ({ query }) => list(query, Number.POSITIVE_INFINITY),
      );
    }
    progress.namesListed++;
  });
  return found;
}

/** A listed metric whose newest datapoint is wanted, and that datapoint once found. */
interface ToRead {
  readonly owner: MetricOwner;
  readonly spec: MetricSpec;
  newestAt?: number;
}

/**
 * The newest datapoint between `from` and `to` of each metric, read in each Region with GetMetricData: one-minute
 * periods, newest first, as many queries a call as one answer page holds and the doctor's datapoints a second allow,
 * every page.
 */
async function readNewest(
  reads: readonly ToRead[],
  from: number,
  to: number,
  progress: PresenceProgress,
): Promise<void> {
  const start = Math.floor(from / MINUTE_MS) * MINUTE_MS;
  const samples = Math.ceil((to - start) / MINUTE_MS);
  // CloudWatch tells the tiers apart by its own clock.
  const tier = datapointTier(start, Date.now());
  const clients = [...new Set(reads.map((read) => read.owner.client))];
  await Promise.all(
    clients.map(async (client) => {
      const inRegion = reads.filter((read) => read.owner.client === client);
      const perCall = queriesPerCall(inRegion.length, samples, {
        datapoints: GET_METRIC_DATA_SHARE.budgets[tier],
        calls: GET_METRIC_DATA_SHARE.callsPerSecond,
      });
      const batches = Array.from({ length: Math.ceil(inRegion.length / perCall) }, (_, i) =>
        inRegion.slice(i * perCall, (i + 1) * perCall),
      );
      const pacer = READ_PACERS.pacerFor(client);
      progress.metrics += inRegion.length;
      await mapLimited(batches, READS_IN_FLIGHT, async (batch) => {
        let nextToken: string | undefined;
        do {
          const answer = await sendPaced(
            client,
            pacer,
            new GetMetricDataCommand({
              MetricDataQueries: batch.map(({ owner, spec }, index) => ({
                Id: `m${index}`,
                ...(owner.accountId && { AccountId: owner.accountId }),
                MetricStat: {
                  Metric: {
                    Namespace: spec.namespace,
                    MetricName: spec.metricName,
                    Dimensions: dimensionsOf(spec.dimensions),
                  },
                  Period: 60,
                  Stat: spec.stat,
                },
              })),
              StartTime: new Date(start),
              EndTime: new Date(to),
              ScanBy: 'TimestampDescending',
              ...(nextToken && { NextToken: nextToken }),
            }),
            { budget: tier, units: batch.length * samples },
          );
          for (const result of answer.MetricDataResults ?? []) {
            const read = batch[Number(result.Id?.slice(1))];
            const latest = result.Timestamps?.[0]?.getTime();
            if (read && latest !== undefined && latest > (read.newestAt ?? Number.NEGATIVE_INFINITY)) {
              read.newestAt = latest;
            }
          }
          nextToken = answer.NextToken;
        } while (nextToken);
        progress.metricsRead += batch.length;
      });
    }),
  );
}

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
