/**
 * The pipeline's own metrics: what the poller emits in embedded metric format, and what the self-monitoring alarms and
 * the dashboard read. One catalogue for both sides, so that nothing is alarmed under a name that is never emitted, and
 * no failure is emitted without an alarm (the infrastructure tests check each `failure` below has one).
 */
export const PIPELINE_NAMESPACE = 'K8sIncidentSentinel';

/** The one dimension of every pipeline metric; its value is the stack name (`SENTINEL_DEPLOYMENT`). */
export const DEPLOYMENT_DIMENSION = 'Deployment';

/** CloudWatch units the pipeline's metrics use (Powertools' `MetricUnit` values of the same names). */
export type PipelineMetricUnit = 'Count' | 'Milliseconds';

interface PipelineMetricSpec {
  readonly unit: PipelineMetricUnit;
  /** Something went wrong that on-call must hear about: an alarm pages on it. */
  readonly failure: boolean;
  /**
   * An alarm reads it. The others feed only the dashboard: each is a custom metric at $0.30 a month, so the poller
   * emits them only when the deployment has the dashboard (`dashboard.enabled`; see `isEmitted`).
   */
  readonly alarmed: boolean;
}

/** Emitted once per completed poll, in this order. */
export const PIPELINE_METRICS = {
  ClustersPolled: { unit: 'Count', failure: false, alarmed: false },
  MetricsRequested: { unit: 'Count', failure: false, alarmed: false },
  /** Shards the step was dealt into for the shard workers (shards.ts); 0 when the poller read the step itself. */
  Shards: { unit: 'Count', failure: false, alarmed: false },
  Findings: { unit: 'Count', failure: false, alarmed: false },
  /** Rule evaluations on clusters that lack some of the rule's signals (some branches skipped), and lack all of them. */
  RulesPartial: { unit: 'Count', failure: false, alarmed: false },
  RulesSkipped: { unit: 'Count', failure: false, alarmed: false },
  NotificationsSent: { unit: 'Count', failure: false, alarmed: false },
  NotificationFailures: { unit: 'Count', failure: true, alarmed: true },
  UnreadableClusters: { unit: 'Count', failure: true, alarmed: true },
  /** Tripwires that keep their cluster armed though its metric reads fine: ten times the reads, nothing failing. */
  BlindTripwires: { unit: 'Count', failure: false, alarmed: false },
  /** Steps whose outcome the table refuses for good, set aside so that polling goes on (StepQuarantinedError). */
  StepsQuarantined: { unit: 'Count', failure: true, alarmed: true },
  PollDurationMs: { unit: 'Milliseconds', failure: false, alarmed: false },
  /**
   * Polls that ran but did not do their job (`didItsJob`): they did not claim their own step (a later poll took it,
   * `stale`, or another invocation has it), or they read only gaps. The heartbeat alarm counts the poller's
   * invocations less these.
   */
  IdlePolls: { unit: 'Count', failure: true, alarmed: true },
  /**
   * Pings of the heartbeat outside AWS that failed. Not alarmed here: the external service pages when pings stop,
   * which is the alarm that still works when this Region or account does not; the poller log says why.
   */
  ExternalHeartbeatFailures: { unit: 'Count', failure: false, alarmed: false },
} as const satisfies Record<string, PipelineMetricSpec>;

export type PipelineMetricName = keyof typeof PIPELINE_METRICS;

/** Where a use case records the pipeline's metrics: Powertools' `Metrics` in a Lambda, anything alike in a test. */
export interface PipelineMetricsRecorder {
  addMetric(name: string, unit: PipelineMetricUnit, value: number): void;
}

/**
 * Whether the poller sends this value. With the dashboard, every value. Without it, only what an alarm reads, and a
 * failure count only when it is not zero: its alarm treats missing data as not breaching, so a zero it is not sent
 * reads as the zero it is, and a custom metric costs only in the hours it receives data
 * (https://aws.amazon.com/cloudwatch/pricing/). A healthy month then sends none.
 */
export function isEmitted(name: PipelineMetricName, value: number, dashboard: boolean): boolean {
  const spec: PipelineMetricSpec = PIPELINE_METRICS[name];
  if (dashboard) return true;
  return spec.alarmed && !(spec.failure && value === 0);
}

/** The metrics the poller sends every minute of a healthy month, which is what CloudWatch bills as custom metrics. */
export function steadyPipelineMetrics(dashboard: boolean): PipelineMetricName[] {
  return (Object.keys(PIPELINE_METRICS) as PipelineMetricName[]).filter((name) => isEmitted(name, 0, dashboard));
}

/** Record one value of a pipeline metric, in the unit the catalogue gives it. */
export function recordPipelineMetric(metrics: PipelineMetricsRecorder, name: PipelineMetricName, value: number): void {
  metrics.addMetric(name, PIPELINE_METRICS[name].unit, value);
}
