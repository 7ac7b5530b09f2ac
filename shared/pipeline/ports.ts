import type { Incident } from '../engine/incident.ts';
import type { NearMiss } from '../engine/near-miss.ts';
import type { Notification } from '../engine/notification.ts';
import type { SignalWindow } from '../engine/signal-window.ts';

/** Reads the signals of watched clusters: CloudWatch when deployed, a scenario file in replay. */
export interface MetricSource {
  /** For each cluster, the `samples` steps of history whose newest sample is at `end`. */
  read(request: MetricRequest): Promise<MetricReading>;
}

export interface MetricReading {
  /** A cluster missing here could not be read this step: it is skipped, not judged on an absence of data. */
  readonly windows: ReadonlyMap<string, SignalWindow>;
  /** Metrics requested from the source, which is what CloudWatch bills. */
  readonly metricsRequested: number;
  readonly unreadable: readonly { readonly clusters: readonly string[]; readonly error: string }[];
}

export interface MetricRequest {
  readonly clusters: readonly string[];
  readonly end: number;
  readonly samples: number;
  readonly stepSeconds: number;
}

/** Why a poll did or did not evaluate its step. */
export type StepClaim = 'claimed' | 'done' | 'busy' | 'stale';

/** What evaluating one step decided: the incidents it changed and the notifications it raised. */
export interface StepOutcome {
  readonly at: number;
  readonly changed: readonly Incident[];
  readonly notifications: readonly Notification[];
}

export interface PendingNotification {
  readonly notification: Notification;
  readonly attempts: number;
  readonly lastError?: string;
}

/**
 * Incidents, the notification outbox and poll bookkeeping. Implementations make every write conditional, so that a
 * retried or overlapping invocation can neither lose nor repeat a notification.
 */
export interface IncidentStore {
  /** Take the right to evaluate step `at`: `done` if it was evaluated, `busy` if someone holds it, `stale` if a later step was. */
  claimStep(at: number, owner: string, leaseUntil: number): Promise<StepClaim>;
  openIncidents(): Promise<Incident[]>;
  /** Save a step's outcome: notifications into the outbox first, then incidents, then the step as done. */
  recordStep(
    at: number,
    owner: string,
    changed: readonly Incident[],
    notifications: readonly Notification[],
  ): Promise<void>;
  /** Notifications not yet delivered, oldest first. */
  pendingNotifications(): Promise<PendingNotification[]>;
  /** Take the right to publish one notification; false if it was delivered or another invocation holds it. */
  claimDelivery(id: string, owner: string, leaseUntil: number): Promise<boolean>;
  markDelivered(id: string, messageId: string, at: number): Promise<void>;
  /** Give a notification back to the outbox after a failed publish, so that the next run retries it. */
  markFailed(id: string, error: string): Promise<void>;
  /** Keep the poll's own bookkeeping, for self-monitoring and the weekly digest. */
  recordPoll(record: PollRecord): Promise<void>;
  /** Everything that happened between two times, read without a scan: for the weekly digest. */
  activityBetween(from: number, to: number): Promise<Activity>;
}

export interface PollRecord {
  readonly at: number;
  readonly owner: string;
  readonly claim: StepClaim;
  readonly startedAt: number;
  /** How long after its scheduled time the poll started; 0 when it was not scheduled. */
  readonly lateMs: number;
  readonly durationMs: number;
  readonly clusters: number;
  /** Clusters actually read at this step: due on the slow cadence, armed by a tripwire, or paging. */
  readonly polled: number;
  readonly metricsRequested: number;
  readonly findings: number;
  readonly created: number;
  readonly delivered: number;
  readonly deliveryFailures: number;
  readonly unreadableClusters: number;
  /** Rules that came within the digest's margin of firing at this step. */
  readonly nearMisses: readonly NearMiss[];
  readonly error?: string;
}

/** A notification as the outbox last saw it: delivered or not, after how many attempts. */
export interface NotificationRecord {
  readonly notification: Notification;
  readonly status: 'pending' | 'sending' | 'delivered';
  readonly attempts: number;
  readonly deliveredAt?: number;
  readonly lastError?: string;
}

export interface Activity {
  /** Incidents opened in the period, and incidents open at any time during it. */
  readonly incidents: readonly Incident[];
  readonly notifications: readonly NotificationRecord[];
  readonly polls: readonly PollRecord[];
}

/**
 * Which clusters a tripwire has armed for minute-by-minute polling: a CloudWatch alarm's state when deployed, the
 * same alarm emulated on the scenario in replay.
 */
export interface Tripwires {
  armed(at: number): Promise<ReadonlySet<string>>;
}

/** Where a tripwire alarm's state change is kept until the polls read it. */
export interface TripwireRecorder {
  record(cluster: string, state: string, changedAt: number): Promise<void>;
}

/** Delivers one notification to on-call; SNS when deployed, a list in replay. */
export interface Notifier {
  publish(notification: Notification): Promise<{ messageId: string }>;
}
