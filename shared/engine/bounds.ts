import { DAY_S } from '../time.ts';
import { durationSeconds, isDuration } from './duration.ts';

/**
 * The limits on every duration, count and threshold a rule or a configuration may set, each from what the value
 * means. docs/rules.md ("Limits") gives the same table to users.
 */

/**
 * CloudWatch keeps one-minute datapoints for 15 days, then only 5-minute ones: a window or baseline longer than that
 * reads data that no longer exists at the poll's period ("Data points with a period of 60 seconds (1-minute) are
 * available for 15 days": https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_GetMetricData.html).
 */
export const MAX_HISTORY_SECONDS = 15 * DAY_S;

/** One-minute samples in 15 days: the largest `n` of a sustained condition. */
export const MAX_SUSTAINED_SAMPLES = MAX_HISTORY_SECONDS / 60;

/** A hold-down longer than a day keeps a cleared incident open through the next one. */
export const MAX_HOLD_DOWN_SECONDS = DAY_S;

/**
 * Datapoints one cluster-read may ask for, counted per signal (every signal the rule set reads, over its longest
 * window): the default rules read 11 signals × 390 samples = 4,290, about 6,600 CloudWatch datapoints since some
 * signals combine several metrics. GetMetricData's account-wide quota is 180,000 datapoints per second for recent data and
 * cannot be raised, so a rule that makes every read several times larger slows the whole fleet
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html).
 */
export const MAX_DATAPOINTS_PER_CLUSTER_READ = 25_000;

/** Conditions nest `allOf`/`anyOf`/`noneOf`; JSON files nest objects. Deeper than this is a mistake, not a rule. */
export const MAX_NESTING_DEPTH = 32;

/** The cadence and the delays of polling: whole minutes, bounded by what they are for. */
export const POLL_BOUNDS = {
  /** The slow cadence: a quiet cluster is read at least hourly, or tickets would come hours late. */
  every: { minSeconds: 60, maxSeconds: 3600 },
  /** CloudWatch's ingestion delay is minutes; waiting longer only delays every page. */
  ingestionLag: { minSeconds: 0, maxSeconds: 900 },
  /** A reminder at least daily for an incident still firing; at most once a minute. */
  renotify: { minSeconds: 60, maxSeconds: 7 * DAY_S },
} as const;

/** Whole minutes: the poller evaluates one step a minute, so a finer grouping time could not be honoured. */
export const GROUPING_BOUNDS = {
  /** Longer than an hour, a new outage's first page would wait longer than any rule takes to see it. */
  wait: { minSeconds: 0, maxSeconds: 3600 },
  /** At least a minute (one step); at most a day, the longest hold-down. */
  interval: { minSeconds: 60, maxSeconds: DAY_S },
  /** At least a minute; at most a day, past which a cluster that starts failing is a story of its own. */
  joinWithin: { minSeconds: 60, maxSeconds: DAY_S },
} as const;

/** The tripwire alarm's thresholds. */
export const TRIPWIRE_BOUNDS = {
  /** The apiserver times a request out after 60 s (kube-apiserver --request-timeout), so no p99 is longer. */
  writeP99Seconds: { max: 60 },
  /** A share of requests: 1 is all of them. */
  errorRatio: { max: 1 },
} as const;

/**
 * How long a run-time silence may last: at least one poll step; at most a week, the digest's period, so that every
 * silence shows in a weekly digest before it ends. Muting for longer is a maintenance window, reviewed in the
 * configuration rather than typed at a prompt.
 */
export const SILENCE_BOUNDS = {
  minSeconds: 60,
  maxSeconds: 7 * DAY_S,
  /**
   * A silence that holds back pages (`--include-pages`) ends at most this long after it was added or last extended:
   * four hours, the default repeat interval (`notifications.renotify`, Alertmanager's `repeat_interval`), so that a
   * page it holds back is never later than a reminder of a page on-call already has; a teardown that takes longer is
   * extended by someone who decides again.
   */
  includePagesMaxSeconds: 4 * 3600,
  /** How far ahead a silence may start (`--start`): within the week a digest covers, as its length is. */
  startWithinSeconds: 7 * DAY_S,
} as const;

/** The range of a parameter or threshold, by its unit. */
export interface ValueRange {
  readonly min: number;
  readonly max: number;
  /** Whether `min` itself is allowed. */
  readonly minInclusive: boolean;
  readonly describe: string;
}

const RANGES: Record<string, ValueRange> = {
  // A share: 5 means 500 %, which no share can reach; the usual mistake is a percentage.
  ratio: { min: 0, max: 1, minInclusive: false, describe: 'a share between 0 and 1 (0.05 for 5 %), not a percentage' },
  // The apiserver's own request timeout is 60 s; a webhook's is at most 30 s.
  seconds: { min: 0, max: 300, minInclusive: false, describe: 'seconds, above 0 and at most 300' },
  x: { min: 1, max: 1000, minInclusive: false, describe: 'a multiple above 1 and at most 1000' },
};
const COUNT: ValueRange = { min: 0, max: 1_000_000, minInclusive: true, describe: 'a count from 0 to 1,000,000' };

/** Every signal is a latency, a count or a share: none is negative, so neither is any threshold. */
export function rangeOfUnit(unit: string): ValueRange {
  return RANGES[unit] ?? COUNT;
}

/** Why `value` is outside `range`, or undefined when it is inside. */
export function outOfRange(value: number, range: ValueRange): string | undefined {
  const low = range.minInclusive ? value < range.min : value <= range.min;
  if (!Number.isFinite(value) || low || value > range.max) return `expected ${range.describe}, got ${value}`;
  return undefined;
}

/** Why a duration is outside [min, max] seconds, or undefined when it is inside (or not a duration at all). */
export function durationOutOfRange(text: string, minSeconds: number, maxSeconds: number): string | undefined {
  if (!isDuration(text)) return undefined;
  const seconds = durationSeconds(text);
  if (seconds >= minSeconds && seconds <= maxSeconds) return undefined;
  return `expected at ${seconds < minSeconds ? 'least' : 'most'} ${describeSeconds(seconds < minSeconds ? minSeconds : maxSeconds)}, got ${text}`;
}

export function describeSeconds(seconds: number): string {
  if (seconds === 0) return '0';
  if (seconds % 86_400 === 0) return `${seconds / 86_400}d`;
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

/** How deeply a parsed JSON value nests, counted without recursion, so that depth itself cannot overflow the stack. */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    deepest = Math.max(deepest, item.depth);
    if (deepest > limit) return deepest;
    if (item.value !== null && typeof item.value === 'object') {
      for (const child of Object.values(item.value)) stack.push({ value: child, depth: item.depth + 1 });
    }
  }
  return deepest;
}
