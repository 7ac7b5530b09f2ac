import { coverageOf, type RuleCoverage } from '../engine/coverage.ts';
import type { ClusterFacts } from '../engine/hint-scope.ts';
import { clusterMuted, type Mute } from '../engine/maintenance.ts';
import type { Labels } from '../engine/matchers.ts';
import { nearMisses } from '../engine/near-miss.ts';
import type { Notification } from '../engine/notification.ts';
import { type Finding, step } from '../engine/step.ts';
import { type DueReads, dueReads } from './cadence.ts';
import { keptBlindTripwires, keptNearMisses, recordedError } from './poll-record.ts';
import type {
  ArmedClusters,
  MetricReading,
  MetricSource,
  Notifier,
  Outbox,
  PendingNotification,
  PipelineStores,
  StepClaim,
  Tripwires,
  UnfinishedStep,
} from './ports.ts';
import { type ObservedReads, observeDue } from './read-due.ts';
import { retirements, withRetirementNotes } from './retired-clusters.ts';
import { type FanOut, fanOutStep, readingOf, shardMessages } from './shards.ts';
import { silencesForStep } from './silence.ts';
import { StepQuarantinedError, StepUnfinishedError } from './step-claim.ts';
import { refreshCycleMs, refreshesTripwires, refreshTripwires, type TripwireRefresh } from './tripwire-refresh.ts';
import type { WatchPlan } from './watch-plan.ts';

export interface PollDependencies extends PipelineStores {
  readonly plan: WatchPlan;
  readonly metrics: MetricSource;
  readonly notifier: Notifier;
  readonly tripwires: Tripwires;
  /** Where the tripwire states are read back from CloudWatch on the slow cadence; replay's emulated alarms need none. */
  readonly tripwireRefresh?: TripwireRefresh;
  /** Read every cluster at this step, whatever the cadence says (a one-off poll from the command line). */
  readonly pollEveryCluster?: boolean;
  /** Where a step larger than one shard is read and evaluated; every step is read here without it (replay). */
  readonly fanOut?: FanOut;
  /** Identifies this invocation in claims (a Lambda request id, or "replay"). */
  readonly owner: string;
  readonly now: () => number;
  /** How long a claim protects a step or a notification from other invocations. */
  readonly leaseMs: number;
  /**
   * When this invocation stops saving a step's incidents and leaves the rest to the next poll (StepUnfinishedError),
   * so that it can still record its poll before its timeout; none in replay, which has no timeout.
   */
  readonly writeUntil?: number;
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
  /** How many shards the step was dealt into for the shard workers (shards.ts); 0 when this poll read it itself. */
  readonly shards: number;
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
  /** Steps this poll quarantined (StepQuarantinedError): the StepsQuarantined metric. */
  readonly quarantined: readonly number[];
  /** The step whose incidents this poll ran out of time to save (StepUnfinishedError): the next poll saves the rest. */
  readonly unfinished?: UnfinishedStep;
  /** Why the tripwire states could not be read back from CloudWatch at this step; the recorded ones were used. */
  readonly tripwireRefreshFailure?: string;
}

/** A poll of every cluster reads no tripwire: nothing is armed. */
const NOTHING_ARMED: ArmedClusters = { byAlarm: new Set(), byNodeChurn: new Set() };

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
  let shards = 0;
  let findings: readonly Finding[] = [];
  let created: readonly Notification[] = [];
  let committed: readonly Notification[] = [];
  let metricsRequested = 0;
  let unreadable: MetricReading['unreadable'] = [];
  let freshClusters = 0;
  let blind: readonly string[] = [];
  let stepError: unknown;
  let refreshed: Promise<string | undefined> | undefined;
  let stepDelivery: Delivery | undefined;
  const quarantined: number[] = [];
  let unfinished: UnfinishedStep | undefined;
  try {
    claim = await claimPastQuarantine(deps, at, startedAt + deps.leaseMs, quarantined);
    if (claim === 'claimed') {
      const incidents = await deps.incidents.openIncidents();
      const {
        byAlarm: armed,
        byNodeChurn,
        recorded,
      } = deps.pollEveryCluster ? NOTHING_ARMED : await deps.tripwires.armed(at);
      // The refresh runs beside the step, not before its reads: DescribeAlarms allows 9 calls a second in a Region,
      // 11 s or more for 10,000 tripwires. It starts once the step has read its armed tripwires, so the step arms on
      // the recorded states as they are and the refresh applies from the next step: once a slow cycle, a tripwire
      // whose ALARM event was never recorded arms a minute later, and one whose OK was lost disarms a minute later.
      // It compares CloudWatch's states with the ones this read found, so that it writes only what needs writing.
      if (deps.tripwireRefresh && !deps.pollEveryCluster && refreshesTripwires(plan, at)) {
        refreshed = tripwiresRefreshed(deps, deps.tripwireRefresh, recorded);
      }
      // A cluster whose nodes are being replaced, possibly repaired, is read every minute as if its tripwire were armed.
      const due: DueReads = deps.pollEveryCluster
        ? { full: plan.clusters.map((c) => c.name), minute: [] }
        : dueReads(plan, at, new Set([...armed, ...byNodeChurn]), incidents);
      polled = [...due.full, ...due.minute];
      // One read of the silences per step, for the whole fleet; the mute stage picks the ones that cover each incident.
      const silences = silencesForStep(await deps.silences.endingAfter(startedAt), at, startedAt);
      const mutes = [...plan.mutes, ...silences];
      const evaluated =
        deps.fanOut && polled.length > deps.fanOut.shardSize
          ? await readInShards(deps, deps.fanOut, due, at, armed, mutes)
          : { ...(await observeDue(deps, due, at, armed)), shards: 0 };
      shards = evaluated.shards;
      metricsRequested = evaluated.metricsRequested;
      unreadable = evaluated.unreadable;
      freshClusters = evaluated.freshClusters;
      blind = evaluated.blindTripwires;
      const retired = retirements(plan, incidents, new Set(evaluated.observations.map((c) => c.cluster)));
      const outcome = step({
        at,
        ruleSet: plan.ruleSet,
        settings: plan.settings,
        incidents,
        mutes,
        facts: factsOf(plan),
        labels: labelsOf(plan),
        clusters: [...evaluated.observations, ...retired.observations],
        resolvedByHand: await deps.handResolutions.all(),
      });
      const notifications = outcome.notifications.map((n) => withRetirementNotes(n, retired.notes));
      findings = outcome.findings;
      created = notifications;
      // Delivered as soon as they are queued, not after the step's incidents are written (applyStep says why); a
      // delivery that throws there is tried again below, once the step is written.
      committed = await deps.ledger.recordStep(
        { at, changed: outcome.changed, notifications },
        deps.owner,
        async (queued) => {
          // Kept before delivering: a step left unfinished returns nothing, and a delivery that throws here is tried
          // again below without waiting for the outbox to list what was queued.
          committed = queued;
          stepDelivery = await deliverPending(deps, queued).catch(() => undefined);
        },
        deps.writeUntil,
      );
    }
  } catch (error) {
    // A quarantined step has moved the cursor on: this poll is done with it, and the alarm reads the report. An
    // unfinished one is committed and its notifications queued: the next claim saves the rest of its incidents.
    if (error instanceof StepQuarantinedError) quarantined.push(error.step);
    else if (error instanceof StepUnfinishedError) unfinished = error.unfinished;
    else stepError = error;
  }
  const unreadableClusters = unreadable.reduce((n, u) => n + u.clusters.length, 0);
  let tripwireRefreshFailure: string | undefined;
  let delivery: Delivery;
  try {
    // Whatever became of this step, what earlier steps left in the outbox still goes out.
    delivery = stepDelivery ?? (await deliverPending(deps, committed));
  } finally {
    // Awaited only now, so that a slow refresh holds back neither the step's commit nor its delivery; and on every
    // path, a delivery that throws included, so that no refresh outlives the invocation that started it.
    tripwireRefreshFailure = await refreshed;
  }
  const { delivered, failed } = delivery;
  await deps.activityLog.recordPoll({
    at,
    owner: deps.owner,
    claim,
    startedAt,
    lateMs: scheduledAt === undefined ? 0 : Math.max(0, startedAt - scheduledAt),
    durationMs: deps.now() - startedAt,
    clusters: plan.clusters.length,
    polled: polled.length,
    ...(shards > 0 && { shards }),
    metricsRequested,
    findings: findings.filter((f) => f.verdict === 'met').length,
    created: created.length,
    delivered: delivered.length,
    deliveryFailures: failed.length,
    unreadableClusters,
    ...keptBlindTripwires(blind),
    ...keptNearMisses(nearMisses(findings, plan.nearMissMargin)),
    ...(quarantined.length > 0 && { quarantinedSteps: quarantined }),
    ...(unfinished && { unfinishedStep: unfinished }),
    // A failed poll is recorded too, so that the digest can count it; the error still fails the invocation.
    ...(stepError !== undefined && { error: recordedError(stepError) }),
  });
  if (stepError !== undefined) throw stepError;
  const coverage = findings.map(coverageOf).filter((c) => c.status !== 'full');
  return {
    at,
    claim,
    clusters: plan.clusters.length,
    polled,
    shards,
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
    quarantined,
    ...(unfinished && { unfinished }),
    ...(tripwireRefreshFailure !== undefined && { tripwireRefreshFailure }),
  };
}

/**
 * Reads the tripwire states back from CloudWatch. A failure is returned, never thrown, so that the poll awaits it
 * after delivering: the recorded states stand, and the next slow cycle tries again.
 */
async function tripwiresRefreshed(
  deps: PollDependencies,
  refresh: TripwireRefresh,
  recorded: ArmedClusters['recorded'],
): Promise<string | undefined> {
  try {
    const clusters = new Set(deps.plan.clusters.map((c) => c.name));
    await refreshTripwires(
      refresh,
      { clusters, cycleMs: refreshCycleMs(deps.plan), ...(recorded && { recorded }) },
      deps.now(),
    );
    return undefined;
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
}

/**
 * Claim step `at`. A claim that first rolls forward an earlier step the store refuses quarantines that step and moves
 * the cursor past it; the claim is then made again, so that the quarantine costs this poll nothing.
 */
async function claimPastQuarantine(
  deps: PollDependencies,
  at: number,
  leaseUntil: number,
  quarantined: number[],
): Promise<StepClaim> {
  try {
    return await deps.ledger.claimStep(at, deps.owner, leaseUntil, deps.writeUntil);
  } catch (error) {
    if (!(error instanceof StepQuarantinedError)) throw error;
    quarantined.push(error.step);
    return deps.ledger.claimStep(at, deps.owner, leaseUntil, deps.writeUntil);
  }
}

/** Hand the due clusters to shard workers and take what they evaluated (shards.ts), and how many shards it took. */
async function readInShards(
  deps: PollDependencies,
  fanOut: FanOut,
  due: DueReads,
  at: number,
  armed: ReadonlySet<string>,
  mutes: readonly Mute[],
): Promise<ObservedReads & { readonly shards: number }> {
  const labels = labelsOf(deps.plan);
  const muted = (cluster: string) => clusterMuted(mutes, cluster, at, labels.get(cluster));
  const messages = shardMessages(at, due, fanOut.shardSize, muted, armed, fanOut.queue);
  const { reports, late } = await fanOutStep(fanOut, messages, deps.now);
  const rulesOf = new Map(deps.plan.clusters.map((c) => [c.name, c.rules]));
  return {
    observations: reports.flatMap((r) =>
      r.clusters.map((c) => ({ cluster: c.cluster, rules: rulesOf.get(c.cluster) ?? [], reading: readingOf(c) })),
    ),
    metricsRequested: reports.reduce((n, r) => n + r.metricsRequested, 0),
    unreadable: [...reports.flatMap((r) => r.unreadable), ...late],
    freshClusters: reports.reduce((n, r) => n + r.freshClusters, 0),
    blindTripwires: reports.flatMap((r) => r.blindTripwires),
    shards: messages.length,
  };
}

/** What the configuration says about each cluster it names, for hints. */
function labelsOf(plan: WatchPlan): ReadonlyMap<string, Labels> {
  return new Map(plan.clusters.map((c) => [c.name, c.labels]));
}

function factsOf(plan: WatchPlan): ReadonlyMap<string, ClusterFacts> {
  return new Map(plan.clusters.flatMap((c) => (c.facts ? [[c.name, c.facts] as const] : [])));
}

/** What a delivery run published, and what it could not. */
type Delivery = Awaited<ReturnType<typeof deliverPending>>;

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
