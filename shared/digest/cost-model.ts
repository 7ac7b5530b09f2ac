import { SHARD_SIZE } from '../pipeline/shards.ts';
import { AWS_PRICES, MONTH_MS } from '../pricing/aws-prices.ts';

/** What the week's polls and tripwire alarms cost, priced as AWS lists it (us-east-1, before the free tier). */
export interface CostModel {
  /** The poller's memory: Lambda bills GB-seconds of it. */
  readonly pollerMemoryMb: number;
  readonly cloudWatchUsdPer1000Metrics: number;
  /** A standard-resolution alarm, per metric it references and month (30 days). */
  readonly cloudWatchUsdPerAlarmMetricMonth: number;
  /** arm64, which is what the project's functions run on. */
  readonly lambdaUsdPerGbSecond: number;
  readonly lambdaUsdPerMillionRequests: number;
}

export interface CostEstimate {
  readonly metricsRequested: number;
  readonly cloudWatchUsd: number;
  /** Metrics the deployment's tripwire alarms reference, and what they cost over the period. */
  readonly alarmMetrics: number;
  readonly alarmUsd: number;
  readonly lambdaRequests: number;
  readonly lambdaGbSeconds: number;
  readonly lambdaUsd: number;
  readonly totalUsd: number;
  /** The model the figures come from, so that the digest can state the prices it used. */
  readonly model: CostModel;
}

/** GetMetricData, the tripwire alarms, Lambda arm64 duration and Lambda requests, from the one price table. */
const DIGEST_PRICES = {
  cloudWatchUsdPer1000Metrics: AWS_PRICES.getMetricDataMetric.usd * 1000,
  cloudWatchUsdPerAlarmMetricMonth: AWS_PRICES.standardAlarmMetricMonth.usd,
  lambdaUsdPerGbSecond: AWS_PRICES.lambdaArmGbSecond.usd,
  lambdaUsdPerMillionRequests: AWS_PRICES.lambdaRequest.usd * 1e6,
} as const;

/** The poller's memory for a fleet of one shard (infra/ops-stack.ts sizes it with pollerMemoryMb). */
export const POLLER_MEMORY_MB = 512;

/**
 * The poller's memory for a fleet that fans out to shard workers. Lambda gives a function CPU in proportion to its
 * memory, the equivalent of one vCPU at 1,769 MB (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html),
 * and the step of a fleet-wide outage of 10,000 clusters takes 8 to 13 s of the poller's CPU (the fleet outage through
 * the deployed functions, docs/benchmarks.md): at 512 MB, 0.29 of a vCPU, that is 28 to 45 s of its 50 s timeout. A full
 * vCPU costs such a fleet a few dollars a month, a cent per hundred clusters.
 */
export const FAN_OUT_POLLER_MEMORY_MB = 1_769;

/** The poller's memory for a fleet of `clusters`: a full vCPU once the fleet is larger than one shard. */
export function pollerMemoryMb(clusters: number): number {
  return clusters > SHARD_SIZE ? FAN_OUT_POLLER_MEMORY_MB : POLLER_MEMORY_MB;
}

export function costModel(pollerMemoryMb: number): CostModel {
  return { pollerMemoryMb, ...DIGEST_PRICES };
}

/** The tripwire alarms over a period: their alarm metrics, billed per month of 30 days, pro rata. */
export interface AlarmUsage {
  readonly alarmMetrics: number;
  readonly periodMs: number;
}

/**
 * One Lambda request per poll; duration as the polls measured it, which leaves out start-up and billing rounding; and
 * the tripwire alarms, which watch every minute whatever the polls do.
 */
export function estimateCost(
  polls: readonly { readonly metricsRequested: number; readonly durationMs: number }[],
  model: CostModel,
  alarms: AlarmUsage = { alarmMetrics: 0, periodMs: 0 },
): CostEstimate {
  const metricsRequested = polls.reduce((sum, poll) => sum + poll.metricsRequested, 0);
  const seconds = polls.reduce((sum, poll) => sum + poll.durationMs, 0) / 1000;
  const lambdaGbSeconds = seconds * (model.pollerMemoryMb / 1024);
  const cloudWatchUsd = (metricsRequested / 1000) * model.cloudWatchUsdPer1000Metrics;
  const lambdaUsd =
    lambdaGbSeconds * model.lambdaUsdPerGbSecond + (polls.length / 1_000_000) * model.lambdaUsdPerMillionRequests;
  const alarmUsd = alarms.alarmMetrics * model.cloudWatchUsdPerAlarmMetricMonth * (alarms.periodMs / MONTH_MS);
  return {
    metricsRequested,
    cloudWatchUsd,
    alarmMetrics: alarms.alarmMetrics,
    alarmUsd,
    lambdaRequests: polls.length,
    lambdaGbSeconds,
    lambdaUsd,
    totalUsd: cloudWatchUsd + lambdaUsd + alarmUsd,
    model,
  };
}
