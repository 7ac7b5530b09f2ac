import { inMaintenance } from '../engine/maintenance.ts';
import type { Notification } from '../engine/notification.ts';
import { type Finding, step } from '../engine/step.ts';
import type { IncidentStore, MetricSource, Notifier, StepClaim } from './ports.ts';
import type { WatchPlan } from './watch-plan.ts';

export interface PollDependencies {
  readonly plan: WatchPlan;
  readonly metrics: MetricSource;
  readonly store: IncidentStore;
  readonly notifier: Notifier;
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
  readonly findings: readonly Finding[];
  readonly created: readonly Notification[];
  readonly delivered: readonly Notification[];
  readonly failed: readonly DeliveryFailure[];
}

/**
 * One poll: evaluate step `at` if no other invocation has, persist the outcome, then deliver everything still in
 * the outbox, including what earlier runs failed to send. The poller Lambda and the replay command both run this.
 */
export async function runPoll(deps: PollDependencies, at: number): Promise<PollReport> {
  const { plan, store } = deps;
  const claim = await store.claimStep(at, deps.owner, deps.now() + deps.leaseMs);
  let findings: readonly Finding[] = [];
  let created: readonly Notification[] = [];
  if (claim === 'claimed') {
    const windows = await deps.metrics.read({
      clusters: plan.clusters.map((c) => c.name),
      end: at,
      samples: plan.lookback,
      stepSeconds: plan.stepSeconds,
    });
    const incidents = await store.openIncidents();
    const outcome = step({
      at,
      ruleSet: plan.ruleSet,
      settings: plan.settings,
      incidents,
      clusters: plan.clusters.flatMap((cluster) => {
        const window = windows.get(cluster.name);
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
  const { delivered, failed } = await deliverPending(deps);
  return { at, claim, clusters: plan.clusters.length, findings, created, delivered, failed };
}

/** Publish every pending notification once; a failure stays in the outbox for the next run. */
export async function deliverPending(deps: Pick<PollDependencies, 'store' | 'notifier' | 'owner' | 'now' | 'leaseMs'>) {
  const delivered: Notification[] = [];
  const failed: DeliveryFailure[] = [];
  for (const { notification } of await deps.store.pendingNotifications()) {
    if (!(await deps.store.claimDelivery(notification.id, deps.owner, deps.now() + deps.leaseMs))) continue;
    try {
      const { messageId } = await deps.notifier.publish(notification);
      await deps.store.markDelivered(notification.id, messageId, deps.now());
      delivered.push(notification);
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      await deps.store.markFailed(notification.id, message);
      failed.push({ id: notification.id, error: message });
    }
  }
  return { delivered, failed };
}
