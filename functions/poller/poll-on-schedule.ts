import { z } from 'zod';
import { type EmfMetric, emfLine } from '../../aws/emf.ts';
import { type PollDependencies, runPoll } from '../../shared/pipeline/poll.ts';
import { stepForSchedule } from '../../shared/pipeline/poll-time.ts';

export const pollEventSchema = z.object({
  kind: z.literal('poll'),
  scheduledTime: z.iso.datetime({ offset: true, error: 'expected the schedule time as ISO-8601' }),
  executionId: z.string().optional(),
});
export type PollEvent = z.infer<typeof pollEventSchema>;

export interface PollSummary {
  readonly at: string;
  readonly claim: string;
  readonly clusters: number;
  readonly polled: number;
  readonly metricsRequested: number;
  readonly created: number;
  readonly delivered: number;
  readonly deliveryFailures: number;
  readonly unreadableClusters: number;
}

export interface ScheduledPollDependencies extends PollDependencies {
  readonly ingestionLag: string;
  readonly deployment: string;
  readonly log: (line: string) => void;
}

/**
 * The poller's use case: evaluate the step its schedule time points at, then report on itself in EMF. A retried
 * invocation carries the same schedule time, so it claims the same step and cannot page twice.
 */
export async function pollOnSchedule(deps: ScheduledPollDependencies, event: PollEvent): Promise<PollSummary> {
  const scheduledAt = Date.parse(event.scheduledTime);
  const at = stepForSchedule(scheduledAt, deps.ingestionLag, deps.plan.stepSeconds);
  const startedAt = deps.now();
  const metric = (name: string, value: number, unit: EmfMetric['unit'] = 'Count') => ({ name, value, unit });
  try {
    const report = await runPoll(deps, at, scheduledAt);
    for (const failure of report.failed)
      deps.log(JSON.stringify({ level: 'error', message: 'publish failed, kept for retry', ...failure }));
    for (const unreadable of report.unreadable)
      deps.log(JSON.stringify({ level: 'error', message: 'metrics unreadable', ...unreadable }));
    if (report.coverage.length > 0)
      deps.log(JSON.stringify({ level: 'info', message: 'rules without all their signals', rules: report.coverage }));
    deps.log(
      emfLine(
        deps.deployment,
        [
          metric('ClustersPolled', report.polled.length - report.unreadable.reduce((n, u) => n + u.clusters.length, 0)),
          metric('MetricsRequested', report.metricsRequested),
          metric('Findings', report.findings.filter((f) => f.verdict === 'met').length),
          metric('RulesPartial', report.coverageCounts.partial),
          metric('RulesSkipped', report.coverageCounts.skipped),
          metric('NotificationsSent', report.delivered.length),
          metric('NotificationFailures', report.failed.length),
          metric(
            'UnreadableClusters',
            report.unreadable.reduce((n, u) => n + u.clusters.length, 0),
          ),
          metric('PollDurationMs', deps.now() - startedAt, 'Milliseconds'),
          metric('Heartbeat', 1),
        ],
        deps.now(),
      ),
    );
    return {
      at: new Date(at).toISOString(),
      claim: report.claim,
      clusters: report.clusters,
      polled: report.polled.length,
      metricsRequested: report.metricsRequested,
      created: report.created.length,
      delivered: report.delivered.length,
      deliveryFailures: report.failed.length,
      unreadableClusters: report.unreadable.reduce((n, u) => n + u.clusters.length, 0),
    };
  } catch (error) {
    deps.log(emfLine(deps.deployment, [metric('PollFailures', 1)], deps.now()));
    throw error;
  }
}
