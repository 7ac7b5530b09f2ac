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

/** The poller's memory as infra/ops-stack.ts sizes it; change both together. */
export const POLLER_MEMORY_MB = 512;

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
