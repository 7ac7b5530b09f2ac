/**
 * A loopback fake of CloudWatch metrics (PutMetricData, GetMetricData, ListMetrics) and alarms (DescribeAlarms, of
 * alarms a test sets with `setAlarm`) that the real @aws-sdk/client-cloudwatch talks to unmodified, within the
 * throughput quotas CloudWatch documents for GetMetricData, ListMetrics and DescribeAlarms. The installed client
 * speaks AWS JSON 1.0 in query-compatible mode: it POSTs to `/` with
 * `X-Amz-Target: GraniteServiceVersion20100801.<Operation>`, writes timestamps as epoch seconds and non-finite numbers
 * as the strings "NaN"/"Infinity", and names an error by the `x-amzn-query-error: <Code>;<Sender|Receiver>` header
 * before `__type`, so errors carry both.
 *
 * Datapoints are kept per series in 1-minute buckets (sum, count, min, max), which makes every statistic exact for
 * any period that is a multiple of 60 s, and a query walks only the buckets inside its time range. Times are
 * therefore resolved to the minute: StartTime is rounded down, EndTime and the visibility cutoff exclude the buckets
 * whose minute starts at or after them.
 */
import { createHash } from 'node:crypto';
import type {
  DescribeAlarmsInput,
  DescribeAlarmsOutput,
  Dimension,
  DimensionFilter,
  GetMetricDataInput,
  GetMetricDataOutput,
  ListMetricsInput,
  ListMetricsOutput,
  MessageData,
  MetricAlarm,
  MetricDataQuery,
  MetricDataResult,
  MetricDatum,
  PutMetricDataInput,
  StatisticSet,
} from '@aws-sdk/client-cloudwatch';
import { type AwsJsonProtocol, AwsJsonServer } from './aws-json-server.ts';
import { GET_METRIC_DATA_QUOTAS, GetMetricDataQuotaMeter, type GetMetricDataQuotas } from './get-metric-data-quotas.ts';
import {
  type FaultAnswers,
  type HttpReply,
  type LoopbackServerOptions,
  type ServiceCall,
  ServiceError,
} from './loopback-server.ts';
import { DESCRIBE_ALARMS_PER_SECOND, LIST_METRICS_PER_SECOND, RegionRateMeter } from './request-rate-quotas.ts';

/** The account that PutMetricData writes to and that queries without an AccountId read. */
export const DEFAULT_ACCOUNT_ID = '000000000000';

const MINUTE_MS = 60_000;
const MAX_QUERIES = 500;
const MAX_METRIC_DATA = 1000;
const MAX_VALUES = 150;
const MAX_DIMENSIONS = 30;
const DEFAULT_MAX_DATAPOINTS = 100_800;
/** "Up to 500 results are returned for any one call" (ListMetrics). */
const LIST_METRICS_PAGE = 500;
/** ListMetrics leaves out metrics that "haven't reported data in the past two weeks". */
const LIST_METRICS_HORIZON_MS = 14 * 24 * 3_600_000;
/** RecentlyActive's only valid value, PT3H: data points published in the past three hours. */
const RECENTLY_ACTIVE_MS = 3 * 3_600_000;
/** DescribeAlarms: at most 100 names, and MaxRecords from 1 to 100 (50 when not given). */
const MAX_ALARM_NAMES = 100;
const DEFAULT_ALARM_RECORDS = 50;
const QUERY_ID = /^[a-z][a-zA-Z0-9_]*$/;

/** The `__type` CloudWatch sends with each error code; modelled ones let the SDK build its named error classes. */
const ERROR_TYPES: Record<string, string> = {
  InvalidNextToken: 'com.amazonaws.cloudwatch#InvalidNextToken',
  InvalidParameterCombination: 'com.amazonaws.cloudwatch#InvalidParameterCombinationException',
  InvalidParameterValue: 'com.amazonaws.cloudwatch#InvalidParameterValueException',
  MissingParameter: 'com.amazonaws.cloudwatch#MissingRequiredParameterException',
  ValidationError: 'com.amazonaws.cloudwatch#ValidationException',
  InternalServiceError: 'com.amazonaws.cloudwatch#InternalServiceFault',
  Throttling: 'com.amazon.coral.availability#ThrottlingException',
  ServiceUnavailable: 'com.amazon.coral.availability#ServiceUnavailableException',
  SerializationException: 'com.amazon.coral.service#SerializationException',
  UnknownOperationException: 'com.amazon.coral.service#UnknownOperationException',
};

const PROTOCOL: AwsJsonProtocol = {
  service: 'CloudWatch',
  version: '1.0',
  targetPrefix: 'GraniteServiceVersion20100801.',
  queryErrorTypes: ERROR_TYPES,
};

interface Bucket {
  sum: number;
  count: number;
  min: number;
  max: number;
}

const STATS = {
  Sum: (bucket: Bucket) => bucket.sum,
  Average: (bucket: Bucket) => bucket.sum / bucket.count,
  Minimum: (bucket: Bucket) => bucket.min,
  Maximum: (bucket: Bucket) => bucket.max,
  SampleCount: (bucket: Bucket) => bucket.count,
} as const;

type Stat = keyof typeof STATS;

/** Shown on results cut short by `setPartialData`, so a failing assertion says where the truncation came from. */
const PARTIAL_DATA_MESSAGE: MessageData = {
  Code: 'PartialData',
  Value: 'The loopback fake withheld the newest datapoints to simulate data still being ingested.',
};

/** A shape as the SDK's JSON 1.0 codec puts it on the wire. */
type Wire<T> = T extends Date
  ? number
  : T extends number
    ? number | string
    : T extends readonly (infer Item)[]
      ? Wire<Item>[]
      : T extends object
        ? { [K in keyof T]: Wire<T[K]> }
        : T;

/**
 * The throughput quotas the server enforces: GetMetricData's, and DescribeAlarms' and ListMetrics' calls per second in
 * each Region.
 */
export interface CloudWatchQuotas extends GetMetricDataQuotas {
  readonly describeAlarmsPerSecond: number;
  readonly listMetricsPerSecond: number;
}

export interface CloudWatchServerOptions extends LoopbackServerOptions {
  /** The account PutMetricData writes to; defaults to DEFAULT_ACCOUNT_ID. */
  accountId?: string;
  /**
   * Accept PutMetricData into `AWS/` namespaces, which AWS refuses: the test then stands in for the services (EKS,
   * Auto Scaling) that vend those metrics, and still loads them through the real SDK call.
   */
  acceptVendedNamespaces?: boolean;
  /**
   * GetMetricData's throughput quotas and DescribeAlarms' and ListMetrics' rates, enforced by default as AWS documents
   * them (get-metric-data-quotas.ts, request-rate-quotas.ts); a test may lower them to meet throttling sooner, or raise
   * the adjustable ones as an account with an increase would.
   */
  quotas?: Partial<CloudWatchQuotas>;
  /** The service's clock, which decides a request's datapoint tier (StartTime within three hours); Date.now by default. */
  now?: () => number;
}

export async function startCloudWatchServer(options: CloudWatchServerOptions = {}): Promise<CloudWatchServer> {
  return new CloudWatchServer(options).listen();
}

export class CloudWatchServer extends AwsJsonServer<unknown> {
  protected readonly protocol = PROTOCOL;
  readonly accountId: string;
  /** Every GetMetricData request received, as the caller passed it to the SDK, rejected ones included. */
  readonly getMetricDataRequests: GetMetricDataInput[] = [];
  readonly #series = new Map<string, Series>();
  readonly #alarms = new Map<string, MetricAlarm>();
  #visibleUntilMs = Number.POSITIVE_INFINITY;
  #partialKeep: number | undefined;
  readonly #acceptVendedNamespaces: boolean;
  /** GetMetricData's TPS and DPS quotas: what was admitted, what was throttled. */
  readonly quota: GetMetricDataQuotaMeter;
  /** DescribeAlarms' requests per second in each Region: what was throttled. */
  readonly describeAlarmsQuota: RegionRateMeter;
  /** ListMetrics' requests per second in each Region: what was throttled. */
  readonly listMetricsQuota: RegionRateMeter;
  readonly #now: () => number;

  constructor(options: CloudWatchServerOptions = {}) {
    super(options);
    this.accountId = options.accountId ?? DEFAULT_ACCOUNT_ID;
    this.#acceptVendedNamespaces = options.acceptVendedNamespaces ?? false;
    const {
      describeAlarmsPerSecond = DESCRIBE_ALARMS_PER_SECOND,
      listMetricsPerSecond = LIST_METRICS_PER_SECOND,
      ...getMetricData
    } = options.quotas ?? {};
    this.quota = new GetMetricDataQuotaMeter({ ...GET_METRIC_DATA_QUOTAS, ...getMetricData });
    this.describeAlarmsQuota = new RegionRateMeter(describeAlarmsPerSecond);
    this.listMetricsQuota = new RegionRateMeter(listMetricsPerSecond);
    this.#now = options.now ?? Date.now;
  }

  /**
   * Stores datapoints in-process, validated like PutMetricData and all-or-nothing like it, but without the
   * request-level rules (at most 1,000 datums, no `AWS/` namespaces) so tests can bulk-load any namespace and
   * seed other accounts.
   */
  put(input: PutMetricDataInput, accountId = this.accountId): void {
    const namespace = input.Namespace;
    if (!namespace) {
      throw missing('Namespace');
    }
    const now = Date.now();
    const samples = (input.MetricData ?? []).map((datum, index) =>
      toSample(accountId, namespace, datum, `MetricData.member.${index + 1}`, now),
    );
    for (const { key, minute, bucket } of samples) {
      let series = this.#series.get(key);
      if (!series) {
        series = new Series();
        this.#series.set(key, series);
      }
      series.add(minute, bucket);
    }
  }

  /**
   * Serves the series of `from` under the dimensions `to` as well, one series for both (a datapoint put to either is
   * read from both): a fleet of clusters that report the same values costs the server one copy of them.
   */
  alias(namespace: string, metricName: string, from: readonly Dimension[], to: readonly Dimension[]): void {
    const keyOf = (dimensions: readonly Dimension[]) => seriesKey(this.accountId, namespace, metricName, dimensions);
    const series = this.#series.get(keyOf(from));
    if (!series) throw new RangeError(`no series ${namespace} ${metricName} to alias`);
    this.#series.set(keyOf(to), series);
  }

  /**
   * Adds or replaces a metric alarm as DescribeAlarms reports it (name, state, reason, ...): alarms are not evaluated
   * here, so a test sets the state the alarm would be in. An alarm whose `AlarmArn` names a Region is described only
   * to requests signed for that Region, as CloudWatch keeps each Region's alarms apart; one without is in every Region.
   */
  setAlarm(alarm: MetricAlarm): void {
    if (!alarm.AlarmName) throw new RangeError('an alarm needs a name');
    this.#alarms.set(`${alarmRegion(alarm) ?? '*'}/${alarm.AlarmName}`, { ...alarm });
  }

  /** Hides datapoints at or after `until`, as if they were not ingested yet; `undefined` shows everything again. */
  setVisibleUntil(until: Date | undefined): void {
    this.#visibleUntilMs = until?.getTime() ?? Number.POSITIVE_INFINITY;
  }

  /**
   * Marks every result PartialData and keeps only its `keep` oldest datapoints, the way CloudWatch answers while
   * recent data is still being aggregated; `undefined` turns this off.
   */
  setPartialData(keep: number | undefined): void {
    if (keep !== undefined && !(Number.isInteger(keep) && keep >= 0)) {
      throw new RangeError(`keep must be a non-negative integer, got ${keep}`);
    }
    this.#partialKeep = keep;
  }

  /** Back to the state right after start: no data, no recorded requests, no faults, everything visible. */
  override reset(): void {
    super.reset();
    this.#series.clear();
    this.#alarms.clear();
    this.getMetricDataRequests.length = 0;
    this.quota.reset();
    this.describeAlarmsQuota.reset();
    this.listMetricsQuota.reset();
    this.#visibleUntilMs = Number.POSITIVE_INFINITY;
    this.#partialKeep = undefined;
  }

  protected handle({ operation, input, region }: ServiceCall<unknown>): HttpReply {
    switch (operation) {
      case 'PutMetricData':
        this.#putMetricData(decodePutMetricData(input as Wire<PutMetricDataInput>));
        return this.reply({});
      case 'GetMetricData': {
        const request = decodeGetMetricData(input as Wire<GetMetricDataInput>);
        this.getMetricDataRequests.push(request);
        return this.reply(encodeGetMetricDataOutput(this.#getMetricData(request)));
      }
      case 'ListMetrics':
        // CloudWatch counts ListMetrics and DescribeAlarms per account and Region; the server is one account.
        if (!this.listMetricsQuota.admit(region ?? '')) throw this.#rateExceeded();
        return this.reply(this.#listMetrics(input as ListMetricsInput));
      case 'DescribeAlarms':
        if (!this.describeAlarmsQuota.admit(region ?? '')) throw this.#rateExceeded();
        return this.reply(encodeDescribeAlarmsOutput(this.#describeAlarms(input as Wire<DescribeAlarmsInput>, region)));
      default:
        throw new ServiceError(
          'UnknownOperationException',
          `The loopback CloudWatch fake does not implement ${operation}`,
        );
    }
  }

  protected readonly faultAnswers: FaultAnswers = {
    throttle: ['Throttling', 'Rate exceeded', 400],
    'server-error': ['InternalServiceError', 'Internal service error (injected fault)', 500],
    unavailable: ['ServiceUnavailable', 'Service unavailable (injected fault)', 503],
  };

  /**
   * What CloudWatch answers a call over one of its rate quotas: HTTP 400, code Throttling, "Rate exceeded", which the
   * SDK's standard retry strategy recognises as throttling and backs off from. It is the throttle fault's answer.
   */
  #rateExceeded(): ServiceError {
    return this.faultError('throttle');
  }

  #putMetricData(input: PutMetricDataInput): void {
    if (input.Namespace?.startsWith('AWS/') && !this.#acceptVendedNamespaces) {
      throw invalidValue('Namespace', input.Namespace);
    }
    if ((input.MetricData?.length ?? 0) > MAX_METRIC_DATA) {
      throw new ServiceError(
        'ValidationError',
        `The collection MetricData must not have a size greater than ${MAX_METRIC_DATA}.`,
      );
    }
    this.put(input);
  }

  /**
   * ListMetrics as CloudWatch answers it: exact namespace and name filters, dimension filters that a metric matches
   * when it has each named dimension (with the value, when one is given), only metrics with data in the past two weeks
   * (three hours with RecentlyActive PT3H), the monitoring account's own unless IncludeLinkedAccounts, 500 a page.
   */
  #listMetrics(input: ListMetricsInput): ListMetricsOutput {
    if (input.RecentlyActive !== undefined && input.RecentlyActive !== 'PT3H') {
      throw invalidValue('RecentlyActive', input.RecentlyActive);
    }
    if (input.OwningAccount !== undefined && input.IncludeLinkedAccounts !== true) {
      throw new ServiceError(
        'InvalidParameterCombination',
        'The parameter OwningAccount requires IncludeLinkedAccounts to be true.',
      );
    }
    if ((input.Dimensions?.length ?? 0) > 10) {
      throw invalidValue('Dimensions', `a list of ${input.Dimensions?.length} dimension filters`);
    }
    const since = this.#now() - (input.RecentlyActive ? RECENTLY_ACTIVE_MS : LIST_METRICS_HORIZON_MS);
    const found: { account: string; metric: { Namespace: string; MetricName: string; Dimensions: Dimension[] } }[] = [];
    for (const [key, series] of this.#series) {
      const [account, namespace, metricName, pairs] = JSON.parse(key) as [string, string, string, [string, string][]];
      if (
        input.IncludeLinkedAccounts
          ? input.OwningAccount && account !== input.OwningAccount
          : account !== this.accountId
      ) {
        continue;
      }
      if (input.Namespace !== undefined && namespace !== input.Namespace) continue;
      if (input.MetricName !== undefined && metricName !== input.MetricName) continue;
      if (!matchesFilters(pairs, input.Dimensions ?? [])) continue;
      if (series.newest() < since) continue;
      found.push({
        account,
        metric: {
          Namespace: namespace,
          MetricName: metricName,
          Dimensions: pairs.map(([Name, Value]) => ({ Name, Value })),
        },
      });
    }
    const offset = input.NextToken === undefined ? 0 : listOffset(input.NextToken, found.length);
    const pageOf = found.slice(offset, offset + LIST_METRICS_PAGE);
    const next = offset + LIST_METRICS_PAGE;
    return {
      Metrics: pageOf.map((entry) => entry.metric),
      ...(input.IncludeLinkedAccounts && { OwningAccounts: pageOf.map((entry) => entry.account) }),
      ...(next < found.length && { NextToken: Buffer.from(JSON.stringify({ list: next })).toString('base64url') }),
    };
  }

  /** DescribeAlarms over the alarms set with `setAlarm`: metric alarms only (no composite alarm is ever set). */
  #describeAlarms(input: Wire<DescribeAlarmsInput>, region: string | undefined): DescribeAlarmsOutput {
    if (input.AlarmNames !== undefined && input.AlarmNamePrefix !== undefined) {
      throw new ServiceError(
        'InvalidParameterCombination',
        'The parameters AlarmNames and AlarmNamePrefix are mutually exclusive and you have specified both.',
      );
    }
    if ((input.AlarmNames?.length ?? 0) > MAX_ALARM_NAMES) {
      throw new ServiceError(
        'ValidationError',
        `The collection AlarmNames must not have a size greater than ${MAX_ALARM_NAMES}.`,
      );
    }
    const records = toNumber(input.MaxRecords) ?? DEFAULT_ALARM_RECORDS;
    if (!(Number.isInteger(records) && records >= 1 && records <= 100)) throw invalidValue('MaxRecords', records);
    const metricAlarms = input.AlarmTypes === undefined || input.AlarmTypes.includes('MetricAlarm');
    const names = input.AlarmNames === undefined ? undefined : new Set(input.AlarmNames);
    const matching = [...this.#alarms.values()]
      .filter(() => metricAlarms)
      .filter((alarm) => region === undefined || inRegion(alarm, region))
      .filter((alarm) => names === undefined || names.has(alarm.AlarmName ?? ''))
      .filter((alarm) => input.AlarmNamePrefix === undefined || alarm.AlarmName?.startsWith(input.AlarmNamePrefix))
      .filter((alarm) => input.StateValue === undefined || alarm.StateValue === input.StateValue)
      .sort((a, b) => (a.AlarmName ?? '').localeCompare(b.AlarmName ?? ''));
    const offset = input.NextToken === undefined ? 0 : listOffset(input.NextToken, matching.length);
    const next = offset + records;
    return {
      MetricAlarms: matching.slice(offset, next),
      CompositeAlarms: [],
      ...(next < matching.length && { NextToken: Buffer.from(JSON.stringify({ list: next })).toString('base64url') }),
    };
  }

  #getMetricData(input: GetMetricDataInput): GetMetricDataOutput {
    const queries = statQueries(input.MetricDataQueries, this.accountId);
    const { StartTime: start, EndTime: end, ScanBy: scanBy = 'TimestampDescending' } = input;
    if (!start) {
      throw missing('StartTime');
    }
    if (!end) {
      throw missing('EndTime');
    }
    if (!(start < end)) {
      throw new ServiceError('ValidationError', 'The parameter StartTime must be less than the parameter EndTime.');
    }
    if (scanBy !== 'TimestampDescending' && scanBy !== 'TimestampAscending') {
      throw invalidValue('ScanBy', scanBy);
    }
    const maxDatapoints = input.MaxDatapoints ?? DEFAULT_MAX_DATAPOINTS;
    if (!(Number.isInteger(maxDatapoints) && maxDatapoints > 0)) {
      throw invalidValue('MaxDatapoints', maxDatapoints);
    }
    // Counted on what the request could return, every period of every query, as the quota page says; a page of a
    // paginated answer is charged what it could hold.
    const couldReturn = queries.reduce(
      (sum, query) => sum + Math.ceil((end.getTime() - start.getTime()) / query.periodMs),
      0,
    );
    const refused = this.quota.admit(this.#now(), start.getTime(), Math.min(couldReturn, maxDatapoints));
    if (refused !== undefined) throw this.#rateExceeded();
    const fromMs = Math.floor(start.getTime() / MINUTE_MS) * MINUTE_MS;
    const toMs = Math.min(end.getTime(), this.#visibleUntilMs);
    const results = queries
      .filter((query) => query.returnData)
      .map((query) => this.#evaluate(query, fromMs, toMs, scanBy === 'TimestampAscending'));
    const total = results.reduce((sum, result) => sum + result.timestamps.length, 0);
    const fingerprint = requestFingerprint(input);
    const offset = input.NextToken === undefined ? 0 : readNextToken(input.NextToken, fingerprint, total);
    return page(results, offset, maxDatapoints, fingerprint);
  }

  /** One query's datapoints in scan order: a datapoint per period that has data, none for the gaps. */
  #evaluate(query: StatQuery, fromMs: number, toMs: number, ascending: boolean): Evaluated {
    const timestamps: number[] = [];
    const values: number[] = [];
    let open: { start: number; bucket: Bucket } | undefined;
    const close = ({ start, bucket }: { start: number; bucket: Bucket }) => {
      timestamps.push(start);
      values.push(STATS[query.stat](bucket));
    };
    for (const [minute, bucket] of this.#series.get(query.key)?.range(fromMs, toMs) ?? []) {
      const start = fromMs + Math.floor((minute - fromMs) / query.periodMs) * query.periodMs;
      if (open?.start === start) {
        merge(open.bucket, bucket);
      } else {
        if (open) {
          close(open);
        }
        open = { start, bucket: { ...bucket } };
      }
    }
    if (open) {
      close(open);
    }
    const keep = this.#partialKeep;
    if (keep !== undefined) {
      timestamps.length = Math.min(timestamps.length, keep);
      values.length = timestamps.length;
    }
    if (!ascending) {
      timestamps.reverse();
      values.reverse();
    }
    return { id: query.id, label: query.label, timestamps, values, partial: keep !== undefined };
  }
}

/** One series: its buckets by minute start, and those minutes kept sorted so a time range is a binary search away. */
class Series {
  readonly #buckets = new Map<number, Bucket>();
  readonly #minutes: number[] = [];

  add(minute: number, sample: Bucket): void {
    const bucket = this.#buckets.get(minute);
    if (bucket) {
      merge(bucket, sample);
      return;
    }
    this.#buckets.set(minute, { ...sample });
    const last = this.#minutes.at(-1);
    // Data nearly always arrives in time order, which makes this an append.
    const at = last === undefined || last < minute ? this.#minutes.length : lowerBound(this.#minutes, minute);
    this.#minutes.splice(at, 0, minute);
  }

  /** The start of the newest minute with data, or -Infinity for a series without any. */
  newest(): number {
    return this.#minutes.at(-1) ?? Number.NEGATIVE_INFINITY;
  }

  /** The buckets whose minute starts in [fromMs, toMs), oldest first. */
  *range(fromMs: number, toMs: number): Generator<[number, Bucket]> {
    for (let index = lowerBound(this.#minutes, fromMs); index < this.#minutes.length; index++) {
      const minute = this.#minutes[index];
      const bucket = minute === undefined ? undefined : this.#buckets.get(minute);
      if (minute === undefined || minute >= toMs || !bucket) {
        return;
      }
      yield [minute, bucket];
    }
  }
}

interface Sample {
  key: string;
  minute: number;
  bucket: Bucket;
}

interface StatQuery {
  id: string;
  label: string;
  returnData: boolean;
  key: string;
  periodMs: number;
  stat: Stat;
}

interface Evaluated {
  id: string;
  label: string;
  timestamps: number[];
  values: number[];
  /** Cut short by `setPartialData`, as opposed to continued on a later page. */
  partial: boolean;
}

function toSample(accountId: string, namespace: string, datum: MetricDatum, path: string, now: number): Sample {
  if (!datum.MetricName) {
    throw missing(`${path}.MetricName`);
  }
  const dimensions = datum.Dimensions ?? [];
  if (dimensions.length > MAX_DIMENSIONS) {
    throw invalidValue(`${path}.Dimensions`, `a list of ${dimensions.length} dimensions`);
  }
  const names = new Set<string>();
  dimensions.forEach(({ Name, Value }, index) => {
    if (!Name || !Value || names.has(Name)) {
      throw invalidValue(`${path}.Dimensions.member.${index + 1}`, `${Name}=${Value}`);
    }
    names.add(Name);
  });
  const timestamp = datum.Timestamp?.getTime() ?? now;
  if (!Number.isFinite(timestamp)) {
    throw invalidValue(`${path}.Timestamp`, datum.Timestamp);
  }
  return {
    key: seriesKey(accountId, namespace, datum.MetricName, dimensions),
    minute: Math.floor(timestamp / MINUTE_MS) * MINUTE_MS,
    bucket: datumBucket(datum, path),
  };
}

/** What one datum adds to its minute, from whichever of Value, Values/Counts or StatisticValues it carries. */
function datumBucket({ Value, Values, Counts, StatisticValues }: MetricDatum, path: string): Bucket {
  const given = [
    ...(Value === undefined ? [] : ['Value']),
    ...(Values === undefined ? [] : ['Values']),
    ...(StatisticValues === undefined ? [] : ['StatisticValues']),
  ];
  if (given.length > 1) {
    throw new ServiceError(
      'InvalidParameterCombination',
      `The parameters ${given.map((name) => `${path}.${name}`).join(' and ')} are mutually exclusive and you have specified both.`,
    );
  }
  if (StatisticValues) {
    return statisticSetBucket(StatisticValues, `${path}.StatisticValues`);
  }
  if (Values) {
    return valuesBucket(Values, Counts, path);
  }
  const value = finite(Value, `${path}.Value`);
  return { sum: value, count: 1, min: value, max: value };
}

function statisticSetBucket(set: StatisticSet, path: string): Bucket {
  const bucket = {
    sum: finite(set.Sum, `${path}.Sum`),
    count: finite(set.SampleCount, `${path}.SampleCount`),
    min: finite(set.Minimum, `${path}.Minimum`),
    max: finite(set.Maximum, `${path}.Maximum`),
  };
  if (bucket.count <= 0) {
    throw invalidValue(`${path}.SampleCount`, bucket.count);
  }
  if (bucket.min > bucket.max) {
    throw invalidValue(`${path}.Minimum`, bucket.min);
  }
  return bucket;
}

function valuesBucket(values: number[], counts: number[] | undefined, path: string): Bucket {
  if (values.length === 0 || values.length > MAX_VALUES) {
    throw invalidValue(`${path}.Values`, `a list of ${values.length} values`);
  }
  if (counts && counts.length !== values.length) {
    throw new ServiceError(
      'InvalidParameterValue',
      `The parameters ${path}.Values and ${path}.Counts must be lists of the same size.`,
    );
  }
  const bucket = { sum: 0, count: 0, min: Number.POSITIVE_INFINITY, max: Number.NEGATIVE_INFINITY };
  values.forEach((raw, index) => {
    const value = finite(raw, `${path}.Values.member.${index + 1}`);
    const count = counts ? finite(counts[index], `${path}.Counts.member.${index + 1}`) : 1;
    if (count <= 0) {
      throw invalidValue(`${path}.Counts.member.${index + 1}`, count);
    }
    merge(bucket, { sum: value * count, count, min: value, max: value });
  });
  return bucket;
}

function statQueries(queries: MetricDataQuery[] | undefined, defaultAccountId: string): StatQuery[] {
  if (!queries || queries.length === 0) {
    throw missing('MetricDataQueries');
  }
  if (queries.length > MAX_QUERIES) {
    throw new ServiceError(
      'ValidationError',
      `The collection MetricDataQueries must not have a size greater than ${MAX_QUERIES}.`,
    );
  }
  const ids = new Set<string>();
  return queries.map((query, index) => {
    const path = `MetricDataQueries.member.${index + 1}`;
    const id = query.Id ?? '';
    if (!QUERY_ID.test(id)) {
      throw new ServiceError(
        'ValidationError',
        `The value ${id} for parameter ${path}.Id is invalid: it must start with a lowercase letter and contain only letters, numbers and underscores.`,
      );
    }
    if (ids.has(id)) {
      throw new ServiceError(
        'ValidationError',
        `The values for parameter Id in MetricDataQueries are not unique: ${id}.`,
      );
    }
    ids.add(id);
    return statQuery(query, id, path, defaultAccountId);
  });
}

function statQuery(query: MetricDataQuery, id: string, path: string, defaultAccountId: string): StatQuery {
  if (query.Expression !== undefined) {
    throw new ServiceError(
      'ValidationError',
      `${path}.Expression: metric math and Metrics Insights expressions are not supported by the loopback CloudWatch fake; use MetricStat.`,
    );
  }
  const { MetricStat: metricStat } = query;
  if (!metricStat) {
    throw new ServiceError('ValidationError', `${path} must specify exactly one of MetricStat or Expression.`);
  }
  const { Metric: metric, Period: period, Stat: stat } = metricStat;
  if (!metric?.Namespace || !metric.MetricName) {
    throw missing(`${path}.MetricStat.Metric`);
  }
  // High-resolution periods (1, 5, 10, 30 s) would need finer buckets than the fake keeps.
  if (period === undefined || !Number.isInteger(period) || period <= 0 || period % 60 !== 0) {
    throw new ServiceError('ValidationError', `The parameter ${path}.MetricStat.Period must be a multiple of 60.`);
  }
  if (!isStat(stat)) {
    throw new ServiceError(
      'ValidationError',
      `${path}.MetricStat.Stat ${stat} is not supported by the loopback CloudWatch fake; use one of ${Object.keys(STATS).join(', ')}.`,
    );
  }
  return {
    id,
    label: query.Label ?? metric.MetricName,
    returnData: query.ReturnData ?? true,
    key: seriesKey(query.AccountId ?? defaultAccountId, metric.Namespace, metric.MetricName, metric.Dimensions ?? []),
    periodMs: period * 1000,
    stat,
  };
}

/**
 * The page of datapoints [offset, offset + maxDatapoints) of all results laid end to end in query order. Every
 * result appears on every page; one whose datapoints continue on a later page reports PartialData.
 */
function page(results: Evaluated[], offset: number, maxDatapoints: number, fingerprint: string): GetMetricDataOutput {
  const end = offset + maxDatapoints;
  let start = 0;
  const metricDataResults = results.map((result): MetricDataResult => {
    const count = result.timestamps.length;
    const from = Math.min(Math.max(offset - start, 0), count);
    const to = Math.min(Math.max(end - start, 0), count);
    start += count;
    return {
      Id: result.id,
      Label: result.label,
      Timestamps: result.timestamps.slice(from, to).map((ms) => new Date(ms)),
      Values: result.values.slice(from, to),
      StatusCode: result.partial || to < count ? 'PartialData' : 'Complete',
      Messages: result.partial ? [PARTIAL_DATA_MESSAGE] : [],
    };
  });
  return {
    MetricDataResults: metricDataResults,
    Messages: [],
    NextToken:
      start > end ? Buffer.from(JSON.stringify({ offset: end, fingerprint })).toString('base64url') : undefined,
  };
}

/** Ties a NextToken to its request, so a client that changes the request between pages is told, as by AWS. */
function requestFingerprint(input: GetMetricDataInput): string {
  return createHash('sha256')
    .update(JSON.stringify({ ...input, NextToken: undefined }))
    .digest('base64url');
}

function readNextToken(token: string, fingerprint: string, total: number): number {
  let decoded: { offset?: unknown; fingerprint?: unknown } | undefined;
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  const offset = decoded?.offset;
  if (
    decoded?.fingerprint !== fingerprint ||
    typeof offset !== 'number' ||
    !Number.isInteger(offset) ||
    offset <= 0 ||
    offset >= total
  ) {
    throw new ServiceError('InvalidNextToken', 'The service returned an invalid NextToken or the request changed.');
  }
  return offset;
}

/** Whether a metric's dimensions satisfy ListMetrics' filters: each named dimension present, with its value if given. */
function matchesFilters(pairs: readonly (readonly [string, string])[], filters: readonly DimensionFilter[]): boolean {
  return filters.every(({ Name, Value }) =>
    pairs.some(([name, value]) => name === Name && (Value === undefined || value === Value)),
  );
}

/** The offset a list operation's NextToken carries. */
function listOffset(token: string, total: number): number {
  let offset: unknown;
  try {
    offset = (JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { list?: unknown }).list;
  } catch {
    offset = undefined;
  }
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset <= 0 || offset >= total) {
    throw new ServiceError('InvalidNextToken', 'The service returned an invalid NextToken or the request changed.');
  }
  return offset;
}

/** The same key whatever order the dimensions are given in. */
function seriesKey(accountId: string, namespace: string, metricName: string, dimensions: readonly Dimension[]): string {
  const pairs = dimensions
    .map(({ Name = '', Value = '' }) => [Name, Value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([accountId, namespace, metricName, pairs]);
}

function isStat(stat: string | undefined): stat is Stat {
  return stat !== undefined && Object.hasOwn(STATS, stat);
}

function merge(into: Bucket, sample: Bucket): void {
  into.sum += sample.sum;
  into.count += sample.count;
  into.min = Math.min(into.min, sample.min);
  into.max = Math.max(into.max, sample.max);
}

/** The first index whose value is not below `value`. */
function lowerBound(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] ?? value) < value) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

function finite(value: number | undefined, parameter: string): number {
  if (value === undefined) {
    throw missing(parameter);
  }
  if (!Number.isFinite(value)) {
    throw invalidValue(parameter, value);
  }
  return value;
}

function missing(parameter: string): ServiceError {
  return new ServiceError('MissingParameter', `The parameter ${parameter} is required.`);
}

function invalidValue(parameter: string, value: unknown): ServiceError {
  return new ServiceError('InvalidParameterValue', `The value ${String(value)} for parameter ${parameter} is invalid.`);
}

function fromEpochSeconds(seconds: number | string): Date {
  return new Date(Number(seconds) * 1000);
}

/** Numbers arrive as JSON numbers, or as strings when they are NaN or infinite. */
function toNumber(value: number | string | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}

function decodePutMetricData(wire: Wire<PutMetricDataInput>): PutMetricDataInput {
  if (wire.EntityMetricData !== undefined) {
    throw new ServiceError('ValidationError', 'EntityMetricData is not supported by the loopback CloudWatch fake.');
  }
  return {
    Namespace: wire.Namespace,
    MetricData: wire.MetricData?.map(
      (datum): MetricDatum => ({
        MetricName: datum.MetricName,
        Dimensions: datum.Dimensions,
        Timestamp: datum.Timestamp === undefined ? undefined : fromEpochSeconds(datum.Timestamp),
        Value: toNumber(datum.Value),
        Values: datum.Values?.map(Number),
        Counts: datum.Counts?.map(Number),
        StatisticValues: datum.StatisticValues && {
          SampleCount: toNumber(datum.StatisticValues.SampleCount),
          Sum: toNumber(datum.StatisticValues.Sum),
          Minimum: toNumber(datum.StatisticValues.Minimum),
          Maximum: toNumber(datum.StatisticValues.Maximum),
        },
        Unit: datum.Unit,
        StorageResolution: toNumber(datum.StorageResolution),
      }),
    ),
  };
}

function decodeGetMetricData(wire: Wire<GetMetricDataInput>): GetMetricDataInput {
  return {
    MetricDataQueries: wire.MetricDataQueries?.map(
      (query): MetricDataQuery => ({
        ...query,
        Period: toNumber(query.Period),
        MetricStat: query.MetricStat && { ...query.MetricStat, Period: toNumber(query.MetricStat.Period) },
      }),
    ),
    StartTime: wire.StartTime === undefined ? undefined : fromEpochSeconds(wire.StartTime),
    EndTime: wire.EndTime === undefined ? undefined : fromEpochSeconds(wire.EndTime),
    NextToken: wire.NextToken,
    ScanBy: wire.ScanBy,
    MaxDatapoints: toNumber(wire.MaxDatapoints),
    LabelOptions: wire.LabelOptions,
  };
}

function encodeGetMetricDataOutput(output: GetMetricDataOutput): Wire<GetMetricDataOutput> {
  return {
    ...output,
    MetricDataResults: output.MetricDataResults?.map((result) => ({
      ...result,
      Timestamps: result.Timestamps?.map((timestamp) => timestamp.getTime() / 1000),
    })),
  };
}

/** Alarm timestamps go on the wire as epoch seconds, like every timestamp of the JSON 1.0 codec. */
function encodeDescribeAlarmsOutput(output: DescribeAlarmsOutput): unknown {
  const seconds = (date: Date | undefined) => (date === undefined ? undefined : date.getTime() / 1000);
  return {
    ...output,
    MetricAlarms: output.MetricAlarms?.map((alarm) => ({
      ...alarm,
      AlarmConfigurationUpdatedTimestamp: seconds(alarm.AlarmConfigurationUpdatedTimestamp),
      StateUpdatedTimestamp: seconds(alarm.StateUpdatedTimestamp),
      StateTransitionedTimestamp: seconds(alarm.StateTransitionedTimestamp),
    })),
  };
}

/** The Region in an alarm's ARN, `arn:aws:cloudwatch:REGION:ACCOUNT:alarm:NAME`. */
function alarmRegion(alarm: MetricAlarm): string | undefined {
  return alarm.AlarmArn?.split(':')[3] || undefined;
}

function inRegion(alarm: MetricAlarm, region: string): boolean {
  const own = alarmRegion(alarm);
  return own === undefined || own === region;
}
