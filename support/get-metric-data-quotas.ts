/**
 * GetMetricData's throughput quotas as CloudWatch documents them
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html): 50 transactions per second
 * per account and region (adjustable), and 180,000 datapoints per second when a request's StartTime is at most three
 * hours before the current time, 396,000 when it is older (not adjustable). Datapoints are counted on what a request
 * could return: every MetricStat query's periods between StartTime and EndTime, whether they hold data or not.
 */

export interface GetMetricDataQuotas {
  readonly transactionsPerSecond: number;
  /** Datapoints per second of requests whose StartTime is at most three hours old. */
  readonly recentDatapointsPerSecond: number;
  /** Datapoints per second of requests whose StartTime is older than three hours. */
  readonly olderDatapointsPerSecond: number;
}

export const GET_METRIC_DATA_QUOTAS: GetMetricDataQuotas = {
  transactionsPerSecond: 50,
  recentDatapointsPerSecond: 180_000,
  olderDatapointsPerSecond: 396_000,
};

/** StartTime within this of now counts against the recent tier. */
export const RECENT_START_MS = 3 * 3_600_000;
const WINDOW_MS = 1000;

/** A request the quota refused, and which limit it hit. */
export interface QuotaRefusal {
  readonly limit: 'transactions per second' | 'datapoints per second';
}

/**
 * The quotas over a sliding one-second window: a request is admitted when, with it, the last second holds no more
 * transactions and no more datapoints of its tier than the quota allows. A refused request is not counted, as a
 * throttled call does not consume quota.
 */
export class GetMetricDataQuotaMeter {
  /** Admitted requests of the last second: when, how many datapoints, and which tier. */
  readonly #admitted: { at: number; datapoints: number; recent: boolean }[] = [];
  /** Requests refused since the start (or the last reset), by the limit they hit, for tests and the benchmark. */
  readonly throttled = { 'transactions per second': 0, 'datapoints per second': 0 };
  /** Datapoints admitted since the start (or the last reset): what the reads could have returned. */
  datapoints = 0;
  /** The same, by tier. */
  readonly datapointsByTier = { recent: 0, older: 0 };

  constructor(readonly quotas: GetMetricDataQuotas = GET_METRIC_DATA_QUOTAS) {}

  /**
   * Admit or refuse a request with `datapoints` whose StartTime is `startTime`, at `now` on the service's clock (which
   * a test may set anywhere); the one-second window runs on the monotonic clock.
   */
  admit(now: number, startTime: number, datapoints: number): QuotaRefusal | undefined {
    const at = performance.now();
    while ((this.#admitted[0]?.at ?? at) <= at - WINDOW_MS) this.#admitted.shift();
    const recent = startTime >= now - RECENT_START_MS;
    if (this.#admitted.length + 1 > this.quotas.transactionsPerSecond) return this.#refuse('transactions per second');
    const tierLimit = recent ? this.quotas.recentDatapointsPerSecond : this.quotas.olderDatapointsPerSecond;
    const inTier = this.#admitted.reduce((sum, r) => sum + (r.recent === recent ? r.datapoints : 0), 0);
    if (inTier + datapoints > tierLimit) return this.#refuse('datapoints per second');
    this.#admitted.push({ at, datapoints, recent });
    this.datapoints += datapoints;
    this.datapointsByTier[recent ? 'recent' : 'older'] += datapoints;
    return undefined;
  }

  reset(): void {
    this.#admitted.length = 0;
    this.throttled['transactions per second'] = 0;
    this.throttled['datapoints per second'] = 0;
    this.datapoints = 0;
    this.datapointsByTier.recent = 0;
    this.datapointsByTier.older = 0;
  }

  /**
   * The least time the admitted requests could have taken under the quotas: the most binding of the calls against
   * the TPS and each tier's datapoints against its DPS.
   */
  floorSeconds(calls: number): number {
    return Math.max(
      calls / this.quotas.transactionsPerSecond,
      this.datapointsByTier.recent / this.quotas.recentDatapointsPerSecond,
      this.datapointsByTier.older / this.quotas.olderDatapointsPerSecond,
    );
  }

  #refuse(limit: QuotaRefusal['limit']): QuotaRefusal {
    this.throttled[limit]++;
    return { limit };
  }
}
