import { isoSeconds } from '../engine/notification.ts';
import type { NotificationRecord, PollRecord } from '../pipeline/ports.ts';
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
}

/** How the pipeline itself did: polls run, failed and late, gaps between them, and deliveries that needed retries. */
export function pipelineHealth(input: PipelineInput): PipelineHealth {
  const { polls } = input;
  const steps = [...new Set(polls.map((p) => p.at))].sort((a, b) => a - b);
  let longestGap: PipelineHealth['longestGap'];
  for (let i = 1; i < steps.length; i++) {
    const from = steps[i - 1] as number;
    const to = steps[i] as number;
    if (to - from > Math.max(POLL_INTERVAL_MS, longestGap?.ms ?? 0)) {
      longestGap = { from: isoSeconds(from), to: isoSeconds(to), ms: to - from };
    }
  }
  const first = steps[0];
  const last = steps.at(-1);
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
  return {
    polls: polls.length,
    expectedPolls: Math.round((input.week.to - input.week.from) / POLL_INTERVAL_MS),
    evaluated: polls.filter((p) => p.claim === 'claimed').length,
    failed: polls.filter((p) => p.error !== undefined).length,
    late: polls.filter((p) => p.lateMs > input.lateMs).length,
    maxLateMs: polls.reduce((max, p) => Math.max(max, p.lateMs), 0),
    ...(first !== undefined && { firstPollAt: isoSeconds(first) }),
    ...(last !== undefined && { lastPollAt: isoSeconds(last) }),
    ...(longestGap && { longestGap }),
    clusterReads: polls.reduce((sum, p) => sum + p.polled, 0),
    metricsRequested: polls.reduce((sum, p) => sum + p.metricsRequested, 0),
    unreadableClusters: polls.reduce((sum, p) => sum + p.unreadableClusters, 0),
    notificationsSent: input.notifications.filter((n) => n.status === 'delivered').length,
    notificationsPending: input.notifications.filter((n) => n.status !== 'delivered').length,
    retried,
  };
}
