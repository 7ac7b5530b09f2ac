import type { NotificationRecord, PollRecord } from '../pipeline/ports.ts';
import { isoSeconds } from '../time.ts';
import type { PipelineHealth, RetriedNotification } from './digest.ts';
import type { DigestWeek } from './iso-week.ts';

/** The poll schedule's rate: one poll a minute. */
const POLL_INTERVAL_MS = 60_000;

export interface PipelineInput {
  readonly polls: readonly PollRecord[];
  readonly notifications: readonly NotificationRecord[];
  readonly week: DigestWeek;
  /** A poll that started this long after its schedule is late. */
  readonly lateMs: number;
  /** Whether the polls should cover the whole week (a deployment), or only part of it (a replay). */
  readonly wholeWeek: boolean;
}

/** Below this share of the expected polls, or above this share of failed reads or polls, the pipeline is degraded. */
const DEGRADED_SHARE = 0.1;

/** How the pipeline itself did: polls run, failed and late, gaps between them, and deliveries that needed retries. */
export function pipelineHealth(input: PipelineInput): PipelineHealth {
  const { polls } = input;
  const polled = [...new Set(polls.map((p) => p.at))].sort((a, b) => a - b);
  // For a deployment, the week's start and end bound the gaps too: a poller that died on Tuesday left a gap to Sunday.
  const steps = input.wholeWeek ? [input.week.from - POLL_INTERVAL_MS, ...polled, input.week.to] : polled;
  let longestGap: PipelineHealth['longestGap'];
  for (let i = 1; i < steps.length; i++) {
    const from = steps[i - 1] as number;
    const to = steps[i] as number;
    if (to - from > Math.max(POLL_INTERVAL_MS, longestGap?.ms ?? 0)) {
      longestGap = { from: isoSeconds(from), to: isoSeconds(to), ms: to - from };
    }
  }
  const first = polled[0];
  const last = polled.at(-1);
  const retried: RetriedNotification[] = input.notifications
    .filter((n) => n.attempts > 1 || (n.status !== 'delivered' && n.lastError !== undefined))
    .sort((a, b) => b.attempts - a.attempts || a.notification.at.localeCompare(b.notification.at))
    .map((n) => ({
      id: n.notification.id,
      at: n.notification.at,
      kind: n.notification.kind,
      title: n.notification.title,
      attempts: n.attempts,
      delivered: n.status === 'delivered',
      ...(n.lastError !== undefined && { lastError: n.lastError }),
    }));
  const expectedPolls = Math.round((input.week.to - input.week.from) / POLL_INTERVAL_MS);
  const clusterReads = polls.reduce((sum, p) => sum + p.polled, 0);
  const unreadableClusters = polls.reduce((sum, p) => sum + p.unreadableClusters, 0);
  const failed = polls.filter((p) => p.error !== undefined).length;
  const outOfTime = polls.filter((p) => p.unfinishedStep !== undefined).length;
  const blind = [...new Set(polls.flatMap((p) => p.blindTripwires ?? []))].sort();
  const percent = (part: number, whole: number) => `${Math.round((100 * part) / whole)}%`;
  const problems = input.wholeWeek
    ? [
        polls.length > 0 && polls.length < expectedPolls * (1 - DEGRADED_SHARE)
          ? `only ${percent(polls.length, expectedPolls)} of the week's polls ran`
          : undefined,
        clusterReads > 0 && unreadableClusters >= clusterReads * DEGRADED_SHARE
          ? `CloudWatch could not be read for ${percent(unreadableClusters, clusterReads)} of cluster reads`
          : undefined,
        polls.length > 0 && failed >= polls.length * DEGRADED_SHARE
          ? `${percent(failed, polls.length)} of polls failed`
          : undefined,
      ].filter((problem) => problem !== undefined)
    : [];
  // Not degraded (every cluster is still read, every minute), but it costs tenfold: say so whatever the week.
  if (blind.length > 0) {
    problems.push(
      `the tripwire of ${blind.join(', ')} kept its cluster armed though its metric read fine: the alarm cannot read it (docs/deploy.md, Cross-account tripwire alarms), so the cluster is read every minute at ten times the cost`,
    );
  }
  return {
    polls: polls.length,
    expectedPolls,
    ...(problems.length > 0 && { degraded: problems.join('; ') }),
    evaluated: polls.filter((p) => p.claim === 'claimed').length,
    failed,
    ...(outOfTime > 0 && { outOfTime }),
    late: polls.filter((p) => p.lateMs > input.lateMs).length,
    maxLateMs: polls.reduce((max, p) => Math.max(max, p.lateMs), 0),
    ...(first !== undefined && { firstPollAt: isoSeconds(first) }),
    ...(last !== undefined && { lastPollAt: isoSeconds(last) }),
    ...(longestGap && { longestGap }),
    clusterReads,
    metricsRequested: polls.reduce((sum, p) => sum + p.metricsRequested, 0),
    unreadableClusters,
    notificationsSent: input.notifications.filter((n) => n.status === 'delivered').length,
    notificationsPending: input.notifications.filter((n) => n.status !== 'delivered').length,
    retried,
  };
}
