import {
  type CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataQuery,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import { displayNameOf } from '../../shared/config/cluster-identity.ts';
import type { ClusterConfig } from '../../shared/config/deployment-config.ts';
import { type SeriesBySignal, SeriesWindow, type SignalWindow } from '../../shared/engine/signal-window.ts';
import type { SignalName } from '../../shared/engine/signals.ts';
import { SentinelError } from '../../shared/errors.ts';
import type { MetricReading, MetricRequest, MetricSource } from '../../shared/pipeline/ports.ts';
import { type SignalSource, signalSources } from '../../shared/pipeline/query-plan.ts';
import { mapLimited, QuotaPacer } from '../concurrency.ts';
import { PACING_MARGIN_MS, sendPaced } from '../paced-send.ts';

/** What this module sends: GetMetricData, for the clusters of this account and of the linked ones (AccountId). */
export const IAM_ACTIONS = ['cloudwatch:GetMetricData'] as const;

/** GetMetricData's own limits: queries per call and datapoints per answer page. */
const MAX_QUERIES_PER_CALL = 500;
const MAX_DATAPOINTS_PER_PAGE = 100_800;

/**
 * GetMetricData's datapoints-per-second quotas, which cannot be raised: 180,000 for requests whose StartTime is at
 * most three hours old, 396,000 for older ones, counted on every period a request could return
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html).
 */
export const DATAPOINTS_PER_SECOND = { recent: 180_000, older: 396_000 } as const;
const RECENT_START_MS = 3 * 3_600_000;

/** The datapoints-per-second quota a call whose StartTime is `start` counts against at `now`, as CloudWatch counts. */
export function datapointTier(start: number, now: number): keyof typeof DATAPOINTS_PER_SECOND {
  return start >= now - RECENT_START_MS ? 'recent' : 'older';
}

/**
 * GetMetricData calls started per second in each Region, by who starts them, under the 50 transactions per second
 * CloudWatch allows an account in a Region
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html): this source 40 by default,
 * and `sentinel doctor`'s newest-datapoint reads (inventory.ts) the 10 left.
 */
export const GET_METRIC_DATA_CALLS_PER_SECOND = { metricSource: 40, doctor: 10 } as const;
const CALLS_PER_SECOND = GET_METRIC_DATA_CALLS_PER_SECOND.metricSource;

export class MetricReadError extends SentinelError {}

interface PlannedQuery {
  readonly id: string;
  readonly cluster: string;
  readonly source: SignalSource;
  readonly metric: number;
  readonly query: MetricDataQuery;
}

export type MetricReadFailure = MetricReading['unreadable'][number];

export interface CloudWatchMetricSourceOptions {
  /** A client for a region; clusters without a region use the key `default`. */
  readonly clientFor: (region: string) => CloudWatchClient;
  readonly clusters: readonly ClusterConfig[];
  /** Only these signals (those the rule set reads, for the poller); every signal of the profile without it. */
  readonly signals?: ReadonlySet<SignalName>;
  /**
   * Calls in flight at once (default 4: each answer page decodes to tens of megabytes, and four keep a 1,000-cluster
   * poll's reads within seconds), and calls started per second (default 40, under the account's 50 TPS quota).
   */
  readonly concurrency?: number;
  readonly callsPerSecond?: number;
  /** Datapoints per second of each quota tier the reads may spend (default: all of DATAPOINTS_PER_SECOND). */
  readonly datapointsPerSecond?: { readonly recent: number; readonly older: number };
  /** The clock that tells a recent StartTime from an older one, as CloudWatch's does (default Date.now). */
  readonly now?: () => number;
}

/**
 * Reads every watched cluster's signals with GetMetricData: batches of at most 500 queries (fewer when the look-back
 * is long, so one page holds the answer, and sized so that whole calls spend each second's datapoints), NextToken
 * pagination, paced calls, and AccountId on the queries of clusters in linked accounts. Gaps, NaN and the newest
 * point of a PartialData result become missing samples.
 */
export class CloudWatchMetricSource implements MetricSource {
  private readonly clusters: ReadonlyMap<string, ClusterConfig>;
  /** GetMetricData calls (pages) made since the source was built, and the datapoints they could return, for the benchmark. */
  readonly spent = { calls: 0, datapoints: 0 };
  /** Shared by every read of this source, so that concurrent reads share the account's quota. */
  private readonly pacer: QuotaPacer;
  private readonly datapointsPerSecond: { readonly recent: number; readonly older: number };

  constructor(private readonly options: CloudWatchMetricSourceOptions) {
    this.clusters = new Map(options.clusters.map((c) => [displayNameOf(c), c]));
    this.datapointsPerSecond = options.datapointsPerSecond ?? DATAPOINTS_PER_SECOND;
    this.pacer = new QuotaPacer({
      callsPerSecond: options.callsPerSecond ?? CALLS_PER_SECOND,
      budgets: { ...this.datapointsPerSecond },
      marginMs: PACING_MARGIN_MS,
    });
  }

  private tierOf(start: number): keyof typeof DATAPOINTS_PER_SECOND {
    return datapointTier(start, (this.options.now ?? Date.now)());
  }

  async read(request: MetricRequest): Promise<MetricReading> {
    const { series, metricsRequested, unreadable } = await this.readSeries(request);
    const windows = new Map<string, SignalWindow>();
    const samplesOf = (signal: SignalName) =>
      Math.min(request.samples, request.signals?.get(signal) ?? request.samples);
    for (const [cluster, bySignal] of series) {
      windows.set(
        cluster,
        new SeriesWindow(withoutSilentSignals(bySignal, samplesOf), request.stepSeconds, request.samples - 1),
      );
    }
    return { windows, metricsRequested, unreadable };
  }

  /**
   * The raw series behind `read`, oldest sample first: what a backtest replays and an exported scenario holds.
   * `onProgress` hears of every finished call, so a long fetch can show how far it got.
   */
  async readSeries(
    request: MetricRequest,
    onProgress?: (done: number, total: number) => void,
  ): Promise<{ series: Map<string, SeriesBySignal>; metricsRequested: number; unreadable: MetricReadFailure[] }> {
    const stepMs = request.stepSeconds * 1000;
    const start = request.end - (request.samples - 1) * stepMs;
    const only = request.signals;
    const planned = this.plan(request.clusters, request.stepSeconds, only && new Set(only.keys()));
    // A signal read over fewer samples than the request's starts later: its queries go in calls of their own, as a
    // call has one StartTime, and each call could return no more than it needs.
    const samplesOf = (query: PlannedQuery) =>
      Math.min(request.samples, only?.get(query.source.signal) ?? request.samples);
    const batches: { region: string; samples: number; queries: PlannedQuery[] }[] = [];
    const byCall = groupBy(planned, (q) => `${this.clusters.get(q.cluster)?.region ?? 'default'}\u0000${samplesOf(q)}`);
    for (const queries of byCall.values()) {
      const first = queries[0] as PlannedQuery;
      const region = this.clusters.get(first.cluster)?.region ?? 'default';
      const samples = samplesOf(first);
      const perCall = queriesPerCall(queries.length, samples, {
        datapoints: this.datapointsPerSecond[this.tierOf(request.end - (samples - 1) * stepMs)],
        calls: this.options.callsPerSecond ?? CALLS_PER_SECOND,
      });
      for (let i = 0; i < queries.length; i += perCall)
        batches.push({ region, samples, queries: queries.slice(i, i + perCall) });
    }
    // Series are allocated up front and each answer page is folded into them as it arrives, so that no SDK answer
    // outlives its page: a 1,000-cluster poll holds numbers, not millions of Date objects.
    const series = new Map<string, SeriesBySignal>();
    const targets = new Map<string, Target>();
    for (const query of planned) {
      const bySignal = series.get(query.cluster) ?? {};
      series.set(query.cluster, bySignal);
      const values =
        (bySignal[query.source.signal] as Float64Array | undefined) ??
        new Float64Array(request.samples).fill(Number.NaN);
      bySignal[query.source.signal] = values;
      targets.set(query.id, { values, combine: query.source.combine });
    }
    let finished = 0;
    const failures: MetricReadFailure[] = [];
    await mapLimited(batches, this.options.concurrency ?? 4, async (batch) => {
      try {
        const from = request.end - (batch.samples - 1) * stepMs;
        await this.fetch(batch.region, batch.queries, from, request.end + stepMs, batch.samples, (result, lastPage) =>
          fold(result, lastPage, targets, start, stepMs),
        );
        onProgress?.(++finished, batches.length);
      } catch (error) {
        // One failed batch blinds only its clusters for this step: they are skipped, not judged on no data.
        failures.push({
          clusters: [...new Set(batch.queries.map((q) => q.cluster))],
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        });
      }
    });
    for (const failure of failures) for (const cluster of failure.clusters) series.delete(cluster);
    return { series, metricsRequested: planned.length, unreadable: failures };
  }

  private plan(
    clusters: readonly string[],
    stepSeconds: number,
    only: ReadonlySet<SignalName> | undefined,
  ): PlannedQuery[] {
    const planned: PlannedQuery[] = [];
    const needed = this.options.signals;
    const signals = only && needed ? new Set([...only].filter((s) => needed.has(s))) : (only ?? needed);
    for (const name of clusters) {
      const cluster = this.clusters.get(name);
      if (!cluster) throw new MetricReadError(`cluster "${name}" is not in the configuration`);
      for (const source of signalSources(cluster, signals)) {
        source.metrics.forEach((metric, index) => {
          const id = `q${planned.length}`;
          planned.push({
            id,
            cluster: name,
            source,
            metric: index,
            query: {
              Id: id,
              ...(cluster.accountId && { AccountId: cluster.accountId }),
              ReturnData: true,
              MetricStat: {
                Metric: {
                  Namespace: metric.namespace,
                  MetricName: metric.metricName,
                  Dimensions: Object.entries(metric.dimensions).map(([Name, Value]) => ({ Name, Value })),
                },
                Period: stepSeconds,
                Stat: metric.stat,
              },
            },
          });
        });
      }
    }
    return planned;
  }

  /**
   * Fetch one batch, page by page (NextToken), handing each result to `onResult`. Each page waits for its share of
   * the quotas: a call, and the datapoints it could return in its StartTime's tier.
   */
  private async fetch(
    region: string,
    queries: readonly PlannedQuery[],
    start: number,
    end: number,
    samples: number,
    onResult: (result: MetricDataResult, lastPage: boolean) => void,
  ): Promise<void> {
    const client = this.options.clientFor(region);
    const units = Math.min(queries.length * samples, MAX_DATAPOINTS_PER_PAGE);
    let nextToken: string | undefined;
    do {
      const command = new GetMetricDataCommand({
        MetricDataQueries: queries.map((q) => q.query),
        StartTime: new Date(start),
        EndTime: new Date(end),
        ScanBy: 'TimestampAscending',
        ...(nextToken && { NextToken: nextToken }),
      });
      this.spent.calls++;
      this.spent.datapoints += units;
      const answer = await sendPaced(client, this.pacer, command, { budget: this.tierOf(start), units });
      for (const result of answer.MetricDataResults ?? []) onResult(result, answer.NextToken === undefined);
      nextToken = answer.NextToken;
    } while (nextToken);
  }
}

interface Target {
  readonly values: Float64Array;
  readonly combine: 'max' | 'sum';
}

/**
 * Fold one result into its signal's series: the max or the sum over the signal's metrics. Gaps and NaN stay
 * missing (NaN); what CloudWatch did not return, on a PartialData answer too, is simply not there. A result still
 * PartialData on the last page is data CloudWatch is still aggregating: its newest point may be incomplete, so it is
 * left missing too, and a read that starts later (a minute read's short window) sees no more than a full read does.
 */
function fold(
  result: MetricDataResult,
  lastPage: boolean,
  targets: ReadonlyMap<string, Target>,
  start: number,
  stepMs: number,
): void {
  const target = result.Id ? targets.get(result.Id) : undefined;
  if (!target) return;
  const { values, combine } = target;
  const complete = result.Timestamps ?? [];
  // ScanBy is TimestampAscending: the newest point is the last.
  const timestamps = lastPage && result.StatusCode === 'PartialData' ? complete.slice(0, -1) : complete;
  const datapoints = result.Values ?? [];
  for (let i = 0; i < timestamps.length; i++) {
    const index = Math.round(((timestamps[i] as Date).getTime() - start) / stepMs);
    const value = datapoints[i];
    if (index < 0 || index >= values.length || value === undefined || !Number.isFinite(value)) continue;
    const current = values[index] as number;
    values[index] = Number.isNaN(current) ? value : combine === 'max' ? Math.max(current, value) : current + value;
  }
}

/**
 * Queries per call for a group of `queries` that each return `samples`: as many as a call takes and one answer page
 * holds, fewer where that lets a whole number of calls spend the second's datapoints, spread evenly over the calls
 * the group needs. The pacer starts a call only once all it could return fits the second's budget, so calls of 31,000
 * datapoints (500 queries of 62) fit five times in 180,000 and leave a seventh of it unspent, where 483 fit six times;
 * and a call larger than the budget (a full read's page of 100,800 against a shard worker's 79,200 of the older tier)
 * would spend more than the budget each time it went alone. Where the calls per second would bind first (a handful
 * of samples a query), or a budget is not a positive number, the calls stay as large as they can be.
 */
export function queriesPerCall(
  queries: number,
  samples: number,
  perSecond: { readonly datapoints: number; readonly calls: number },
): number {
  const most = Math.max(1, Math.min(MAX_QUERIES_PER_CALL, Math.floor(MAX_DATAPOINTS_PER_PAGE / samples)));
  const callsToSpend = Math.ceil(perSecond.datapoints / (most * samples));
  const even =
    callsToSpend >= 1 && callsToSpend <= perSecond.calls
      ? Math.max(1, Math.floor(perSecond.datapoints / (callsToSpend * samples)))
      : most;
  const calls = Math.ceil(queries / Math.min(most, even));
  return Math.ceil(queries / calls);
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item)) ?? [];
    groups.set(key(item), group);
    group.push(item);
  }
  return groups;
}

/**
 * A signal of which CloudWatch returned not one datapoint over its look-back, while the cluster's other signals have
 * data in that same span, is one the cluster does not publish (a 429 series EKS never wrote, webhook latency on a
 * cluster without webhooks): it is left out, so that rules treat it as absent, as replay treats a signal a scenario
 * does not list, instead of reading it as "unknown" at every step, which would keep every incident that reads it open.
 * A cluster with no datapoint in that span has gone dark there, and keeps the signal: signals-missing must see it, and
 * a rule reading it must find its recent data missing (unknown), not the signal absent (skipped, which lets an
 * incident resolve). Each signal is judged over its own span, the newest `samplesOf(signal)` samples: a signal read
 * over an hour keeps datapoints from before a blind spell that one read over minutes does not, and those old
 * datapoints are not a cluster speaking now.
 */
export function withoutSilentSignals(
  bySignal: SeriesBySignal,
  samplesOf: (signal: SignalName) => number = () => Number.POSITIVE_INFINITY,
): SeriesBySignal {
  const entries = Object.entries(bySignal) as [SignalName, ArrayLike<number | null>][];
  const speaks = (values: ArrayLike<number | null>, span: number) => {
    for (let i = Math.max(0, values.length - span); i < values.length; i++) {
      const value = values[i];
      if (value !== null && value !== undefined && !Number.isNaN(value)) return true;
    }
    return false;
  };
  return Object.fromEntries(
    entries.filter(([signal, values]) => {
      const span = samplesOf(signal);
      return speaks(values, span) || !entries.some(([, others]) => speaks(others, span));
    }),
  ) as SeriesBySignal;
}
