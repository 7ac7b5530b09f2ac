import type { HandResolution } from '../engine/hand-resolution.ts';
import type { Incident } from '../engine/incident.ts';
import type { NearMiss } from '../engine/near-miss.ts';
import type { Notification } from '../engine/notification.ts';
import type { SignalWindow } from '../engine/signal-window.ts';
import type { SignalName } from '../engine/signals.ts';
import type { Silence } from './silence.ts';

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
  /**
   * Only these signals, those the rules evaluated at this read need, each over its own number of samples (at most
   * `samples`, the newest ones); every signal the source reads, over `samples`, without it.
   */
  readonly signals?: ReadonlyMap<SignalName, number>;
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

/*
 * The pipeline's state, one port per concern, as Alertmanager keeps alerts, silences and the notification log apart:
 * a change to how notifications are delivered never touches the step ledger, and a new concern (run-time silences,
 * say) is a new port beside these rather than a tenth method on one store. Implementations make every write
 * conditional, so that a retried or overlapping invocation can neither lose nor repeat a notification.
 */

/** What runs once a step's notifications are queued and before its incidents are written: their delivery. */
export type AfterQueued = (queued: readonly Notification[]) => Promise<void>;

/**
 * Which steps were evaluated, and the commit of each step's outcome.
 *
 * A step's outcome spans two concerns (the outbox and the incidents) and must land whole in both: an incident saved
 * without its notification would never page, and a notification without its incident would page again at the next
 * step. The ledger owns that commit: it records the outcome first (in DynamoDB, a write-ahead record), then applies
 * it through the idempotent writes the other ports expose, `Outbox.enqueue` first and `IncidentRepository.save`
 * second, the notifications' delivery between them (see `applyStep`), and only then marks the step done. An invocation that dies between those writes leaves a
 * recorded outcome that the next claim of the step rolls forward, applying it again, which the idempotent writes
 * make harmless; the step is never evaluated a second time.
 */
export interface StepLedger {
  /**
   * Take the right to evaluate step `at`: `done` if it was evaluated, `busy` if someone holds it, `stale` if a later
   * step was. A step left unfinished is rolled forward first, its incidents saved until `writeUntil` at most (then a
   * StepUnfinishedError says how far it got).
   */
  claimStep(at: number, owner: string, leaseUntil: number, writeUntil?: number): Promise<StepClaim>;
  /**
   * Commit a claimed step's outcome and apply it: notifications into the outbox first, then `afterQueued` (the
   * delivery of them), then incidents, then the step as done. Returns the notifications of the outcome that was
   * committed, which is another invocation's when it committed this step first (its lease ran out under it): the
   * caller delivers them without waiting for the outbox to list them. Incidents are saved until `writeUntil` at most:
   * past it the step stays unfinished, its claim is let go, and a StepUnfinishedError says how far it got, so that the
   * next claim saves the rest.
   */
  recordStep(
    outcome: StepOutcome,
    owner: string,
    afterQueued?: AfterQueued,
    writeUntil?: number,
  ): Promise<readonly Notification[]>;
}

/** Incidents, open and resolved. */
export interface IncidentRepository {
  openIncidents(): Promise<Incident[]>;
  /**
   * Write the incidents a step changed. Idempotent, and fenced by the step's time where the store can be written
   * concurrently: a late writer of an older step never overwrites what a newer step wrote.
   */
  save(changed: readonly Incident[], step: number): Promise<void>;
  /** Incidents opened in [from, to) or open at any time during it, read without a scan: for the weekly digest. */
  overlapping(from: number, to: number): Promise<Incident[]>;
}

/** Notifications on their way to on-call, and the record of each once delivered. */
export interface Outbox {
  /** Add the notifications a step raised; one already in the outbox is left as it is, so this is idempotent. */
  enqueue(notifications: readonly Notification[]): Promise<void>;
  /** Notifications not yet delivered, oldest first. */
  pending(): Promise<PendingNotification[]>;
  /** Take the right to publish one notification; false if it was delivered or another invocation holds it. */
  claimDelivery(id: string, owner: string, leaseUntil: number): Promise<boolean>;
  markDelivered(id: string, messageId: string, at: number): Promise<void>;
  /** Give a notification back to the outbox after a failed publish, so that the next run retries it. */
  markFailed(id: string, error: string): Promise<void>;
  /** Every notification raised in [from, to), delivered or not, read without a scan: for the weekly digest. */
  raisedBetween(from: number, to: number): Promise<NotificationRecord[]>;
}

/** The poll's own bookkeeping, and the week it adds up to, for self-monitoring and the weekly digest. */
export interface ActivityLog {
  recordPoll(record: PollRecord): Promise<void>;
  /** Everything that happened between two times: incidents and notifications from their own ports, and the polls. */
  activityBetween(from: number, to: number): Promise<Activity>;
}

/**
 * Silences added at run time, as every poll and the weekly digest read them: one read of the silences that end
 * after a time, whatever cluster they cover, so that a poll reads them once and not once per cluster.
 */
export interface Silences {
  /** Every silence stored that ends after `at` (an expired one ends when it was expired), in no particular order. */
  endingAfter(at: number): Promise<Silence[]>;
}

/** Where `sentinel silence` adds and ends silences. */
export interface SilenceStore extends Silences {
  /** Store a new silence; one with the same id already stored is refused (SilenceError). */
  add(silence: Silence): Promise<void>;
  /** End a silence now; undefined when no silence with that id holds after `at`. */
  expire(id: string, at: number, by: string): Promise<Silence | undefined>;
  /**
   * Make a silence end `duration` later (`extendedSilence`, which refuses an extension out of bounds); undefined when
   * no silence with that id holds after `at`.
   */
  extend(id: string, duration: string, at: number, by: string): Promise<Silence | undefined>;
}

/**
 * Fleet incidents resolved by hand, as every poll reads them: kept apart from the incidents, which only the step
 * writes, so that a resolve given while a poll runs is never overwritten by that poll's write of the incident.
 */
export interface HandResolutions {
  /** Every hand resolution still kept, in no particular order. */
  all(): Promise<HandResolution[]>;
}

/** Where `sentinel incidents resolve` records a hand resolution. */
export interface HandResolutionStore extends HandResolutions {
  /**
   * Keep a fleet incident's hand resolution, unless one is kept already: then that one, unchanged, is returned, so
   * that resolving twice sends the first resolve again (the same notification, which the outbox keeps once).
   */
  record(resolution: HandResolution): Promise<HandResolution>;
}

/** The stores over one state (one table, or one process's memory), as the poll takes them. */
export interface PipelineStores {
  readonly ledger: StepLedger;
  readonly incidents: IncidentRepository;
  readonly outbox: Outbox;
  readonly activityLog: ActivityLog;
  readonly silences: Silences;
  readonly handResolutions: HandResolutions;
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
  /**
   * How many shards the step was dealt into for the shard workers; absent when the poller read it itself, and in
   * records of releases that did not count them.
   */
  readonly shards?: number;
  readonly metricsRequested: number;
  readonly findings: number;
  readonly created: number;
  readonly delivered: number;
  readonly deliveryFailures: number;
  readonly unreadableClusters: number;
  /** Armed clusters whose tripwire evidently cannot read its metric; absent when none. At most 100 (poll-record.ts). */
  readonly blindTripwires?: readonly string[];
  /** How many more there were than the record keeps; absent when it keeps them all. */
  readonly blindTripwiresOmitted?: number;
  /** Rules that came within the digest's margin of firing at this step, the closest 100 (poll-record.ts). */
  readonly nearMisses: readonly NearMiss[];
  /** How many more near misses there were than the record keeps; absent when it keeps them all. */
  readonly nearMissesOmitted?: number;
  /** Steps set aside because the store refuses their outcome for good (StepQuarantinedError); absent when none. */
  readonly quarantinedSteps?: readonly number[];
  /** The step whose incidents the poll ran out of time to save, and how far it got; absent when none. */
  readonly unfinishedStep?: UnfinishedStep;
  readonly error?: string;
}

/**
 * A step whose saving stopped at the poll's `writeUntil` (StepUnfinishedError): how many of its changed incidents, in
 * order, were saved. The next claim saves the rest.
 */
export interface UnfinishedStep {
  readonly step: number;
  readonly saved: number;
  readonly changed: number;
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
  /** Silences that held at any time of the period; absent where none are kept (a store from before silences). */
  readonly silences?: readonly Silence[];
}

/** The clusters armed for minute-by-minute polling at a time, by what armed them. */
export interface ArmedClusters {
  /** Clusters whose tripwire alarm is in ALARM. */
  readonly byAlarm: ReadonlySet<string>;
  /**
   * Clusters a termination that could be a node repair armed for a while (the node-churn function when deployed):
   * polled every minute like an armed tripwire, but no alarm of theirs is expected to have fired.
   */
  readonly byNodeChurn: ReadonlySet<string>;
  /**
   * Every cluster's tripwire alarm state as the store holds it, expired ones included, from the same read: what the
   * slow cycle's refresh compares CloudWatch's states with, to write only those that changed or are near their expiry.
   * Absent where the store keeps no alarm states (replay's alarms are emulated); a refresh then writes every state.
   */
  readonly recorded?: ReadonlyMap<string, RecordedTripwireState>;
}

/** A tripwire alarm state as recorded: what the last write said, and when it expires. */
export interface RecordedTripwireState {
  readonly state: string;
  /** When the alarm changed to `state` (epoch ms); absent on a state recorded without it, which is written again. */
  readonly changedAt?: number;
  /** When it stops arming (epoch ms): TRIPWIRE_STATE_LIFETIME_MS after its change or its last write. */
  readonly expiresAt: number;
}

/**
 * Which clusters a tripwire has armed for minute-by-minute polling: a CloudWatch alarm's state when deployed, the
 * same alarm emulated on the scenario in replay; and which a node repair has. One read per poll answers both, and
 * hands the slow cycle's refresh the alarm states it holds.
 */
export interface Tripwires {
  armed(at: number): Promise<ArmedClusters>;
}

/** Where a tripwire alarm's state change is kept until the polls read it. */
export interface TripwireRecorder {
  /**
   * Keep `state` as the cluster's newest, unless a newer state change is already recorded (EventBridge may deliver
   * late or out of order): then `superseded`. A recorded change dated after `now` came from no real alarm and is
   * overwritten, so it cannot hold the tripwire still. Recording the same change again (its alarm read back from
   * CloudWatch) keeps it from expiring (tripwireStateExpiresAt).
   */
  record(cluster: string, state: string, changedAt: number, now: number): Promise<'recorded' | 'superseded'>;
}

/** A tripwire alarm's state as CloudWatch holds it when asked: what its last state-change event said. */
export interface TripwireAlarmState {
  readonly cluster: string;
  readonly state: string;
  /** When the alarm last changed state (epoch ms). */
  readonly changedAt: number;
}

/**
 * The deployment's tripwire alarms as CloudWatch holds them, read on the slow cadence: an alarm that stays in ALARM
 * sends no further event, and one whose event was lost sends no second, so the recorded states are refreshed from here.
 */
export interface TripwireAlarms {
  states(): Promise<readonly TripwireAlarmState[]>;
}

/** Delivers one notification to on-call; SNS when deployed, a list in replay. */
export interface Notifier {
  publish(notification: Notification): Promise<{ messageId: string }>;
}

/**
 * A heartbeat outside AWS (an Opsgenie heartbeat, a healthchecks-style URL): told of every poll that did its job, so
 * that the service pages when the pings stop. Throws when the ping did not get through; the poller logs it and carries on.
 */
export interface ExternalHeartbeat {
  ping(): Promise<void>;
}
