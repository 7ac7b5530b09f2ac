/**
 * The AWS prices the cost model uses: us-east-1, on-demand, no free tier, as published when this was written.
 * docs/benchmarks.md lists the page each one comes from.
 */
export const PRICES = {
  /** CloudWatch GetMetricData, per metric requested (aws.amazon.com/cloudwatch/pricing: $0.01 per 1,000). */
  getMetricDataPerMetric: 0.01 / 1000,
  /** CloudWatch standard-resolution alarm, per alarm metric and month. */
  alarmMetricMonth: 0.1,
  /** CloudWatch dashboard, per dashboard and month. */
  dashboardMonth: 3,
  /** CloudWatch Logs ingestion (standard class), per GB. */
  logIngestionPerGb: 0.5,
  /** Lambda on arm64, per GB-second (aws.amazon.com/lambda/pricing, first tier). */
  lambdaArmGbSecond: 0.000_013_333_4,
  /** Lambda requests, per invocation ($0.20 per million). */
  lambdaRequest: 0.2 / 1e6,
  /** EventBridge Scheduler, per invocation ($1.00 per million; the 14 million free per month ignored). */
  schedulerInvocation: 1 / 1e6,
  /** DynamoDB on-demand, per write and read request unit ($0.625 and $0.125 per million since November 2024). */
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  /**
   * EventBridge events a workload account forwards to the ops account's bus ($1.00 per million; AWS service events on
   * an account's own default bus are free), aws.amazon.com/eventbridge/pricing.
   */
  eventBridgeCrossAccountEvent: 1 / 1e6,
  /** CloudWatch custom metric, per metric and month (first 10,000): what an EMF node-churn metric would cost. */
  customMetricMonth: 0.3,
  /** SNS standard topic publishes ($0.50 per million). */
  snsPublish: 0.5 / 1e6,
  /** KMS customer managed key, per key and month. */
  kmsKeyMonth: 1,
  /** X-Ray traces recorded ($5.00 per million); active tracing records every invocation at one a minute. */
  xrayTrace: 5 / 1e6,
} as const;

/** A month as the cost model counts it: 30 days of one-minute steps. */
export const MINUTES_PER_MONTH = 30 * 24 * 60;
