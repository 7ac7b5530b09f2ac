import { CHURN_SIGNALS } from '../churn/node-termination.ts';
import { coverageOf, type RuleCoverage } from '../engine/coverage.ts';
import type { ClusterFacts } from '../engine/hint-scope.ts';
import { nearMisses } from '../engine/near-miss.ts';
import type { Notification } from '../engine/notification.ts';
import type { SignalWindow } from '../engine/signal-window.ts';
import { SIGNAL_NAMES, type SignalName } from '../engine/signals.ts';
import { type Finding, step } from '../engine/step.ts';
import { blindTripwires } from './blind-tripwires.ts';
import { type DueReads, dueReads } from './cadence.ts';
import type {
  MetricReading,
  MetricSource,
  Notifier,
  Outbox,
  PendingNotification,
  PipelineStores,
  StepClaim,
  Tripwires,
} from './ports.ts';
import { silencesForStep } from './silence.ts';
import type { WatchPlan } from './watch-plan.ts';

export interface PollDependencies extends PipelineStores {
  readonly plan: WatchPlan;
  readonly metrics: MetricSource;
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
  /** How many of the polled clusters CloudWatch would not answer for: the clusters of every `unreadable` entry. */
  readonly unreadableClusters: number;
  /** Clusters read at this step whose window has a sample at the step itself, not only older history. */
  readonly freshClusters: number;
  /** Armed clusters whose tripwire evidently cannot read its metric (see blind-tripwires.ts). */
  readonly blindTripwires: readonly string[];
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
  const { plan } = deps;
  const startedAt = deps.now();
  let claim: StepClaim = 'busy';
  let polled: readonly string[] = [];
  let findings: readonly Finding[] = [];
  let created: readonly Notification[] = [];
  let committed: readonly Notification[] = [];
  let metricsRequested = 0;
  let unreadable: MetricReading['unreadable'] = [];
  let freshClusters = 0;
  let blind: readonly string[] = [];
  let stepError: unknown;
  try {
    claim = await deps.ledger.claimStep(at, deps.owner, startedAt + deps.leaseMs);
    if (claim === 'claimed') {
      const incidents = await deps.incidents.openIncidents();
      const armed = deps.pollEveryCluster ? new Set<string>() : await deps.tripwires.armed(at);
      // A cluster whose nodes are being replaced, possibly repaired, is read every minute as if its tripwire were armed.
      const byNodeChurn = deps.pollEveryCluster ? undefined : await deps.tripwires.armedByNodeChurn?.(at);
      const due: DueReads = deps.pollEveryCluster
        ? { full: plan.clusters.map((c) => c.name), minute: [] }
        : dueReads(plan, at, byNodeChurn ? new Set([...armed, ...byNodeChurn]) : armed, incidents);
      polled = [...due.full, ...due.minute];
      const reading = await readDue(deps, due, at);
      metricsRequested = reading.metricsRequested;
      unreadable = reading.unreadable;
      freshClusters = [...reading.windows.values()].filter(hasSampleAtStep).length;
      blind = blindTripwires(armed, reading.windows, plan.cadence.tripwire);
      // One read of the silences per step, for the whole fleet; the mute stage picks the ones that cover each incident.
      const silences = silencesForStep(await deps.silences.endingAfter(startedAt), at, startedAt);
      const minute = new Set(due.minute);
      const outcome = step({
        at,
        ruleSet: plan.ruleSet,
        settings: plan.settings,
        incidents,
        mutes: [...plan.mutes, ...silences],
        facts: factsOf(plan),
        clusters: plan.clusters.flatMap((cluster) => {
          const window = reading.windows.get(cluster.name);
          if (!window) return [];
          return [
            {
              cluster: cluster.name,
              window,
              rules: cluster.rules,
              ...(minute.has(cluster.name) && { evaluated: cluster.minuteRules }),
            },
          ];
        }),
      });
      committed = await deps.ledger.recordStep(
        { at, changed: outcome.changed, notifications: outcome.notifications },
        deps.owner,
      );
      findings = outcome.findings;
      created = outcome.notifications;
    }
  } catch (error) {
    stepError = error;
  }
  const unreadableClusters = unreadable.reduce((n, u) => n + u.clusters.length, 0);
  // Whatever became of this step, what earlier steps left in the outbox still goes out.
  const { delivered, failed } = await deliverPending(deps, committed);
  await deps.activityLog.recordPoll({
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
    unreadableClusters,
    ...(blind.length > 0 && { blindTripwires: blind }),
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
    unreadableClusters,
    freshClusters,
    blindTripwires: blind,
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

/**
 * The full reads and the minute reads of a step, side by side: the metric source paces both against the same quota,
 * and their windows are one reading.
 */
async function readDue(deps: PollDependencies, due: DueReads, at: number): Promise<MetricReading> {
  const { plan } = deps;
  const common = { end: at, stepSeconds: plan.stepSeconds };
  const [full, minute] = await Promise.all([
    due.full.length > 0 ? deps.metrics.read({ ...common, clusters: due.full, samples: plan.lookback }) : undefined,
    due.minute.length > 0
      ? deps.metrics.read({
          ...common,
          clusters: due.minute,
          samples: plan.minuteRead.lookback,
          signals: plan.minuteRead.signals,
        })
      : undefined,
  ]);
  const readings = [full, minute].filter((r) => r !== undefined);
  return {
    windows: new Map(readings.flatMap((r) => [...r.windows])),
    metricsRequested: readings.reduce((n, r) => n + r.metricsRequested, 0),
    unreadable: readings.flatMap((r) => r.unreadable),
  };
}

/** What the configuration says about each cluster it names, for hints. */
function factsOf(plan: WatchPlan): ReadonlyMap<string, ClusterFacts> {
  return new Map(plan.clusters.flatMap((c) => (c.facts ? [[c.name, c.facts] as const] : [])));
}

/** Whether any signal of the window has its newest sample, the one at the evaluated step. */
/**
 * Whether the source had data at the step. Node churn is counted from events into the table, and reads 0 at every step
 * without a termination whether or not the cluster's metrics arrived: it is no sign that they did.
 */
const MEASURED_SIGNALS = SIGNAL_NAMES.filter((signal) => !(CHURN_SIGNALS as readonly SignalName[]).includes(signal));

function hasSampleAtStep(window: SignalWindow): boolean {
  return MEASURED_SIGNALS.some((signal) => window.has(signal) && window.sample(signal, 0) !== null);
}

/**
 * Publish every pending notification once; a failure stays in the outbox for the next run. `committed` are the
 * notifications this run's step just committed: the outbox lists pending notifications through an index that is
 * eventually consistent (DynamoDB's `byDay` GSI), which may not show them yet, and they must go out in this run, not
 * a minute later.
 */
export async function deliverPending(
  deps: Pick<PollDependencies, 'outbox' | 'notifier' | 'owner' | 'now' | 'leaseMs'>,
  committed: readonly Notification[] = [],
) {
  const delivered: Notification[] = [];
  const failed: DeliveryFailure[] = [];
  const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  for (const { notification } of await pendingWith(deps.outbox, committed)) {
    if (!(await deps.outbox.claimDelivery(notification.id, deps.owner, deps.now() + deps.leaseMs))) continue;
    let messageId: string;
    try {
      ({ messageId } = await deps.notifier.publish(notification));
    } catch (error) {
      await deps.outbox.markFailed(notification.id, describe(error));
      failed.push({ id: notification.id, error: describe(error) });
      continue;
    }
    // Published: from here on a failure must never hand it back to the outbox, or on-call would get it again.
    try {
      await deps.outbox.markDelivered(notification.id, messageId, deps.now());
      delivered.push(notification);
    } catch (error) {
      failed.push({ id: notification.id, error: `published (${messageId}) but not recorded: ${describe(error)}` });
    }
  }
  return { delivered, failed };
}

/** What the outbox lists as pending, with `committed` added where the index does not show them yet; oldest first. */
async function pendingWith(outbox: Outbox, committed: readonly Notification[]): Promise<PendingNotification[]> {
  const pending = new Map<string, PendingNotification>();
  for (const notification of committed) pending.set(notification.id, { notification, attempts: 0 });
  // The outbox's own record wins: it knows the attempts and the last error.
  for (const listed of await outbox.pending()) pending.set(listed.notification.id, listed);
  return [...pending.values()].sort((a, b) => a.notification.at.localeCompare(b.notification.at));
}
