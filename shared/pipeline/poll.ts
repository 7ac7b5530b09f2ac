import { coverageOf, type RuleCoverage } from '../engine/coverage.ts';
import { inMaintenance } from '../engine/maintenance.ts';
import { nearMisses } from '../engine/near-miss.ts';
import type { Notification } from '../engine/notification.ts';
import { type Finding, step } from '../engine/step.ts';
import { dueClusters } from './cadence.ts';
import type { IncidentStore, MetricReading, MetricSource, Notifier, StepClaim, Tripwires } from './ports.ts';
import type { WatchPlan } from './watch-plan.ts';

export interface PollDependencies {
  readonly plan: WatchPlan;
  readonly metrics: MetricSource;
  readonly store: IncidentStore;
  readonly notifier: Notifier;
  readonly tripwires: Tripwires;
  /** Read every cluster at this step, whatever the cadence says (a one-off poll from the command line). */
  readonly pollEveryCluster?: boolean;
  /** Identifies this invocation in claims (a Lambda request id, or "replay"). */
  readonly owner: string;
  readonly now: () => number;
  /** How long a claim protects a step or a notification from other invocations. */
  readonly leaseMs: number;
}

export interface DeliveryFailure {
  readonly id: string;
  readonly error: string;
}

export interface PollReport {
  readonly at: number;
  readonly claim: StepClaim;
  readonly clusters: number;
  /** The clusters read at this step. */
  readonly polled: readonly string[];
  readonly metricsRequested: number;
  readonly unreadable: MetricReading['unreadable'];
  readonly findings: readonly Finding[];
  /** Rules that ran without some of their signals (partial) or not at all (skipped) on the clusters read. */
  readonly coverage: readonly RuleCoverage[];
  /** How many of them ran partly, and how many not at all: the poller's RulesPartial and RulesSkipped. */
  readonly coverageCounts: { readonly partial: number; readonly skipped: number };
  readonly created: readonly Notification[];
  readonly delivered: readonly Notification[];
  readonly failed: readonly DeliveryFailure[];
}

/**
 * One poll: evaluate step `at` (the newest sample time: scheduled time less ingestion lag) for the clusters that are
 * due, if no other invocation has, persist the outcome, then deliver everything still in the outbox, including what
 * earlier runs failed to send. The poller Lambda and the replay command both run this.
 */
export async function runPoll(deps: PollDependencies, at: number, scheduledAt?: number): Promise<PollReport> {
  const { plan, store } = deps;
  const startedAt = deps.now();
  let claim: StepClaim = 'busy';
  let polled: readonly string[] = [];
  let findings: readonly Finding[] = [];
  let created: readonly Notification[] = [];
  let metricsRequested = 0;
  let unreadable: MetricReading['unreadable'] = [];
  let stepError: unknown;
  try {
    claim = await store.claimStep(at, deps.owner, startedAt + deps.leaseMs);
    if (claim === 'claimed') {
      const incidents = await store.openIncidents();
      polled = deps.pollEveryCluster
        ? plan.clusters.map((c) => c.name)
        : dueClusters(plan, at, await deps.tripwires.armed(at), incidents);
      const reading = await deps.metrics.read({
        clusters: polled,
        end: at,
        samples: plan.lookback,
        stepSeconds: plan.stepSeconds,
      });
      metricsRequested = reading.metricsRequested;
      unreadable = reading.unreadable;
      const outcome = step({
        at,
        ruleSet: plan.ruleSet,
        settings: plan.settings,
        incidents,
        clusters: plan.clusters.flatMap((cluster) => {
          const window = reading.windows.get(cluster.name);
          if (!window) return [];
          return [
            {
              cluster: cluster.name,
              window,
              rules: cluster.rules,
              inMaintenance: inMaintenance(plan.maintenance, cluster.name, at),
            },
          ];
        }),
      });
      await store.recordStep(at, deps.owner, outcome.changed, outcome.notifications);
      findings = outcome.findings;
      created = outcome.notifications;
    }
  } catch (error) {
    stepError = error;
  }
  // Whatever became of this step, what earlier steps left in the outbox still goes out.
  const { delivered, failed } = await deliverPending(deps);
  await store.recordPoll({
    at,
    owner: deps.owner,
    claim,
    startedAt,
    lateMs: scheduledAt === undefined ? 0 : Math.max(0, startedAt - scheduledAt),
    durationMs: deps.now() - startedAt,
    clusters: plan.clusters.length,
    polled: polled.length,
    metricsRequested,
    findings: findings.filter((f) => f.verdict === 'met').length,
    created: created.length,
    delivered: delivered.length,
    deliveryFailures: failed.length,
    unreadableClusters: unreadable.reduce((n, u) => n + u.clusters.length, 0),
    nearMisses: nearMisses(findings, plan.nearMissMargin),
    // A failed poll is recorded too, so that the digest can count it; the error still fails the invocation.
    ...(stepError !== undefined && {
      error: stepError instanceof Error ? `${stepError.name}: ${stepError.message}` : String(stepError),
    }),
  });
  if (stepError !== undefined) throw stepError;
  const coverage = findings.map(coverageOf).filter((c) => c.status !== 'full');
  return {
    at,
    claim,
    clusters: plan.clusters.length,
    polled,
    metricsRequested,
    unreadable,
    findings,
    coverage,
    coverageCounts: {
      partial: coverage.filter((c) => c.status === 'partial').length,
      skipped: coverage.filter((c) => c.status === 'skipped').length,
    },
    created,
    delivered,
    failed,
  };
}

/** Publish every pending notification once; a failure stays in the outbox for the next run. */
export async function deliverPending(deps: Pick<PollDependencies, 'store' | 'notifier' | 'owner' | 'now' | 'leaseMs'>) {
  const delivered: Notification[] = [];
  const failed: DeliveryFailure[] = [];
  const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  for (const { notification } of await deps.store.pendingNotifications()) {
    if (!(await deps.store.claimDelivery(notification.id, deps.owner, deps.now() + deps.leaseMs))) continue;
    let messageId: string;
    try {
      ({ messageId } = await deps.notifier.publish(notification));
    } catch (error) {
      await deps.store.markFailed(notification.id, describe(error));
      failed.push({ id: notification.id, error: describe(error) });
      continue;
    }
    // Published: from here on a failure must never hand it back to the outbox, or on-call would get it again.
    try {
      await deps.store.markDelivered(notification.id, messageId, deps.now());
      delivered.push(notification);
    } catch (error) {
      failed.push({ id: notification.id, error: `published (${messageId}) but not recorded: ${describe(error)}` });
    }
  }
  return { delivered, failed };
}
