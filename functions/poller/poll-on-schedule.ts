import type { Logger } from '@aws-lambda-powertools/logger';
import * as z from 'zod';
import { eventTime } from '../../shared/pipeline/event-time.ts';
import {
  isEmitted,
  type PipelineMetricName,
  type PipelineMetricsRecorder,
  recordPipelineMetric,
} from '../../shared/pipeline/pipeline-metrics.ts';
import { type PollDependencies, type PollReport, runPoll } from '../../shared/pipeline/poll.ts';
import { stepForSchedule } from '../../shared/pipeline/poll-time.ts';
import type { ExternalHeartbeat, UnfinishedStep } from '../../shared/pipeline/ports.ts';

export const pollEventSchema = z.object({
  kind: z.literal('poll'),
  scheduledTime: z.iso.datetime({ offset: true, error: 'expected the schedule time as ISO-8601' }),
  executionId: z.string().optional(),
});
export type PollEvent = z.infer<typeof pollEventSchema>;

/**
 * A poll did its job when it evaluated its own step with data that was there to read: it claimed the step, and read
 * at least one cluster with a sample at that step, or had none due. A poll that keeps finding its step taken by a
 * later one (`stale`), or reads only gaps, is not watching anything: it counts in `IdlePolls`, whose alarm pages
 * when every minute of five had one.
 */
export function didItsJob(report: Pick<PollReport, 'claim' | 'polled' | 'freshClusters'>): boolean {
  return report.claim === 'claimed' && (report.polled.length === 0 || report.freshClusters > 0);
}

export interface PollSummary {
  readonly at: string;
  readonly claim: string;
  readonly clusters: number;
  readonly polled: number;
  readonly shards: number;
  readonly metricsRequested: number;
  readonly created: number;
  readonly delivered: number;
  readonly deliveryFailures: number;
  readonly unreadableClusters: number;
  /** The step whose incidents the poll ran out of time to save, and how far it got; absent when none. */
  readonly unfinished?: Omit<UnfinishedStep, 'step'> & { readonly step: string };
}

export interface ScheduledPollDependencies extends PollDependencies {
  readonly ingestionLag: string;
  readonly logger: Pick<Logger, 'error' | 'debug' | 'warn'>;
  /** Where the poll reports on itself; `publishRecordedMetrics` flushes it after the invocation. */
  readonly pipelineMetrics: PipelineMetricsRecorder;
  /** The deployment has the dashboard: emit every pipeline metric, not only those an alarm reads. */
  readonly dashboard: boolean;
  /** Pinged after every poll that did its job, when `selfMonitoring.externalHeartbeat` names one. */
  readonly externalHeartbeat?: ExternalHeartbeat;
}

/**
 * The poller's use case: evaluate the step its schedule time points at, then report on itself in metrics. A retried
 * invocation carries the same schedule time, so it claims the same step and cannot page twice. A poll that fails
 * records no metric: the function's Errors page for it (`PollerErrors`).
 */
export async function pollOnSchedule(deps: ScheduledPollDependencies, event: PollEvent): Promise<PollSummary> {
  const startedAt = deps.now();
  const scheduledAt = eventTime('$.scheduledTime', event.scheduledTime, startedAt);
  const at = stepForSchedule(scheduledAt, deps.ingestionLag, deps.plan.stepSeconds);
  const report = await runPoll(deps, at, scheduledAt);
  for (const failure of report.failed) deps.logger.error('publish failed, kept for retry', { ...failure });
  for (const unreadable of report.unreadable) deps.logger.error('metrics unreadable', { ...unreadable });
  // Coverage follows from the configuration, so it is the same every minute: RulesPartial and RulesSkipped count it,
  // `sentinel doctor` explains it, and the list itself is logged only at debug level, not ingested every poll.
  if (report.coverage.length > 0) deps.logger.debug('rules without all their signals', { rules: report.coverage });
  if (report.tripwireRefreshFailure !== undefined) {
    deps.logger.error('tripwire alarms unreadable in CloudWatch; the recorded states stand until the next slow cycle', {
      error: report.tripwireRefreshFailure,
    });
  }
  for (const cluster of report.blindTripwires) {
    deps.logger.warn('tripwire armed on data that reads fine: its alarm cannot read its metric', { cluster });
  }
  const record = (name: PipelineMetricName, value: number) => {
    if (isEmitted(name, value, deps.dashboard)) recordPipelineMetric(deps.pipelineMetrics, name, value);
  };
  record('ClustersPolled', report.polled.length - report.unreadableClusters);
  record('MetricsRequested', report.metricsRequested);
  record('Shards', report.shards);
  record('Findings', report.findings.filter((f) => f.verdict === 'met').length);
  record('RulesPartial', report.coverageCounts.partial);
  record('RulesSkipped', report.coverageCounts.skipped);
  record('NotificationsSent', report.delivered.length);
  record('NotificationFailures', report.failed.length);
  record('UnreadableClusters', report.unreadableClusters);
  const unfinished = report.unfinished && {
    ...report.unfinished,
    step: new Date(report.unfinished.step).toISOString(),
  };
  if (unfinished)
    deps.logger.warn('out of time saving the step: the next poll saves the rest of its incidents', unfinished);
  for (const step of report.quarantined) {
    deps.logger.error('step quarantined: its outcome cannot be stored, polling goes on', {
      step: new Date(step).toISOString(),
    });
  }
  record('BlindTripwires', report.blindTripwires.length);
  record('StepsQuarantined', report.quarantined.length);
  record('PollDurationMs', deps.now() - startedAt);
  const didIt = didItsJob(report);
  record('IdlePolls', didIt ? 0 : 1);
  // The heartbeat outside AWS beats for the polls the one inside counts. A ping that fails is the external service's
  // to notice (it pages once pings stop); it must never fail a poll that did its job.
  if (deps.externalHeartbeat && didIt) {
    try {
      await deps.externalHeartbeat.ping();
    } catch (error) {
      deps.logger.warn('external heartbeat ping failed; the poll carries on', {
        error: error instanceof Error ? error.message : String(error),
      });
      record('ExternalHeartbeatFailures', 1);
    }
  }
  return {
    at: new Date(at).toISOString(),
    claim: report.claim,
    clusters: report.clusters,
    polled: report.polled.length,
    shards: report.shards,
    metricsRequested: report.metricsRequested,
    created: report.created.length,
    delivered: report.delivered.length,
    deliveryFailures: report.failed.length,
    unreadableClusters: report.unreadableClusters,
    ...(unfinished && { unfinished }),
  };
}
