import {
  type CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataQuery,
  type MetricDataResult,
} from '@aws-sdk/client-cloudwatch';
import type { ClusterConfig } from '../shared/config/deployment-config.ts';
import { type SeriesBySignal, SeriesWindow, type SignalWindow } from '../shared/engine/signal-window.ts';
import type { Sample } from '../shared/engine/signals.ts';
import { SentinelError } from '../shared/errors.ts';
import type { MetricReading, MetricRequest, MetricSource } from '../shared/pipeline/ports.ts';
import { mapPaced } from './concurrency.ts';
import { type SignalSource, signalSources } from './query-plan.ts';

/** GetMetricData's own limits: queries per call and datapoints per answer page. */
const MAX_QUERIES_PER_CALL = 500;
const MAX_DATAPOINTS_PER_PAGE = 100_800;

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
  /** Calls in flight at once, and calls started per second (the account quota is 50 TPS). */
  readonly concurrency?: number;
  readonly callsPerSecond?: number;
}

/**
 * Reads every watched cluster's signals with GetMetricData: batches of at most 500 queries (fewer when the look-back
 * is long, so one page holds the answer), NextToken pagination, paced calls, and AccountId on the queries of
 * clusters in linked accounts. Gaps, NaN and the newest point of a PartialData result become missing samples.
 */
export class CloudWatchMetricSource implements MetricSource {
  private readonly clusters: ReadonlyMap<string, ClusterConfig>;
  /** GetMetricData calls (pages) made by the last read, for the benchmark. */
  lastCalls = 0;

  constructor(private readonly options: CloudWatchMetricSourceOptions) {
    this.clusters = new Map(options.clusters.map((c) => [c.name, c]));
  }

  async read(request: MetricRequest): Promise<MetricReading> {
    const { series, metricsRequested, unreadable } = await this.readSeries(request);
    const windows = new Map<string, SignalWindow>();
    for (const [cluster, bySignal] of series) {
      windows.set(cluster, new SeriesWindow(bySignal, request.stepSeconds, request.samples - 1));
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
    const planned = this.plan(request.clusters, request.stepSeconds);
    const perCall = Math.max(1, Math.min(MAX_QUERIES_PER_CALL, Math.floor(MAX_DATAPOINTS_PER_PAGE / request.samples)));
    const batches: { region: string; queries: PlannedQuery[] }[] = [];
    for (const [region, queries] of groupBy(planned, (q) => this.clusters.get(q.cluster)?.region ?? 'default')) {
      for (let i = 0; i < queries.length; i += perCall)
        batches.push({ region, queries: queries.slice(i, i + perCall) });
    }
    let calls = 0;
    let finished = 0;
    const failures: MetricReadFailure[] = [];
    const answers = await mapPaced(
      batches,
      { limit: this.options.concurrency ?? 10, perSecond: this.options.callsPerSecond ?? 40 },
      async (batch) => {
        try {
          const { results, pages } = await this.fetch(batch.region, batch.queries, start, request.end + stepMs);
          calls += pages;
          onProgress?.(++finished, batches.length);
          return results;
        } catch (error) {
          // One failed batch blinds only its clusters for this step: they are skipped, not judged on no data.
          failures.push({
            clusters: [...new Set(batch.queries.map((q) => q.cluster))],
            error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
          });
          return undefined;
        }
      },
    );
    this.lastCalls = calls;
    const failed = new Set(failures.flatMap((f) => f.clusters));
    const byId = new Map<string, MetricDataResult>();
    for (const results of answers) for (const result of results ?? []) if (result.Id) byId.set(result.Id, result);
    const series = this.assemble(planned, byId, failed, start, stepMs, request.samples);
    return { series, metricsRequested: planned.length, unreadable: failures };
  }

  private plan(clusters: readonly string[], stepSeconds: number): PlannedQuery[] {
    const planned: PlannedQuery[] = [];
    for (const name of clusters) {
      const cluster = this.clusters.get(name);
      if (!cluster) throw new MetricReadError(`cluster "${name}" is not in the configuration`);
      for (const source of signalSources(cluster)) {
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

  private async fetch(region: string, queries: readonly PlannedQuery[], start: number, end: number) {
    const client = this.options.clientFor(region);
    const merged = new Map<string, { timestamps: Date[]; values: number[]; status: string }>();
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const answer = await client.send(
        new GetMetricDataCommand({
          MetricDataQueries: queries.map((q) => q.query),
          StartTime: new Date(start),
          EndTime: new Date(end),
          ScanBy: 'TimestampAscending',
          ...(nextToken && { NextToken: nextToken }),
        }),
      );
      pages++;
      for (const result of answer.MetricDataResults ?? []) {
        if (!result.Id) continue;
        const entry = merged.get(result.Id) ?? { timestamps: [], values: [], status: 'Complete' };
        entry.timestamps.push(...(result.Timestamps ?? []));
        entry.values.push(...(result.Values ?? []));
        entry.status = result.StatusCode ?? entry.status;
        merged.set(result.Id, entry);
      }
      nextToken = answer.NextToken;
    } while (nextToken);
    const results: MetricDataResult[] = [...merged.entries()].map(([Id, e]) => ({
      Id,
      Timestamps: e.timestamps,
      Values: e.values,
      StatusCode: e.status as MetricDataResult['StatusCode'],
    }));
    return { results, pages };
  }

  private assemble(
    planned: readonly PlannedQuery[],
    results: ReadonlyMap<string, MetricDataResult>,
    failed: ReadonlySet<string>,
    start: number,
    stepMs: number,
    samples: number,
  ): Map<string, SeriesBySignal> {
    const components = new Map<string, Map<SignalSource, Sample[][]>>();
    for (const query of planned) {
      if (failed.has(query.cluster)) continue;
      const values = toSamples(results.get(query.id), start, stepMs, samples);
      const bySource = components.get(query.cluster) ?? new Map<SignalSource, Sample[][]>();
      components.set(query.cluster, bySource);
      const parts = bySource.get(query.source) ?? [];
      bySource.set(query.source, parts);
      parts.push(values);
    }
    const series = new Map<string, SeriesBySignal>();
    for (const [cluster, bySource] of components) {
      const bySignal: SeriesBySignal = {};
      for (const [source, parts] of bySource) bySignal[source.signal] = combine(parts, source.combine, samples);
      series.set(cluster, bySignal);
    }
    return series;
  }
}

function toSamples(result: MetricDataResult | undefined, start: number, stepMs: number, count: number): Sample[] {
  const samples: Sample[] = new Array(count).fill(null);
  const timestamps = result?.Timestamps ?? [];
  const values = result?.Values ?? [];
  let newest = -1;
  timestamps.forEach((timestamp, i) => {
    const index = Math.round((timestamp.getTime() - start) / stepMs);
    const value = values[i];
    if (index < 0 || index >= count || value === undefined || !Number.isFinite(value)) return;
    samples[index] = value;
    newest = Math.max(newest, index);
  });
  // The newest bucket of a partial answer may be an incomplete aggregate; a low count there must not look like recovery.
  if (result?.StatusCode === 'PartialData' && newest >= 0) samples[newest] = null;
  return samples;
}

function combine(parts: readonly Sample[][], how: 'max' | 'sum', count: number): Sample[] {
  const combined: Sample[] = new Array(count).fill(null);
  for (const part of parts) {
    part.forEach((value, i) => {
      if (value === null) return;
      const current = combined[i] ?? null;
      combined[i] = current === null ? value : how === 'max' ? Math.max(current, value) : current + value;
    });
  }
  return combined;
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
