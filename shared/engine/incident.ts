import type { Evidence } from './evaluate-condition.ts';
import type { Severity } from './rule.ts';

/**
 * One root cause on one cluster, from the first finding until everything it explains has stayed clear for the
 * hold-down. Timestamps are ISO-8601 strings so that the record reads the same in DynamoDB, JSON and a test.
 */
export interface Incident {
  readonly id: string;
  readonly cluster: string;
  /** The root cause: the rule that explains every other rule attached to this incident. */
  readonly rule: string;
  readonly severity: Severity;
  readonly status: 'open' | 'resolved';
  readonly openedAt: string;
  readonly resolvedAt?: string;
  /** Set when a late-identified cause absorbed this incident into its own. */
  readonly mergedInto?: string;
  /** Rules attached as symptoms, in the order they arrived. */
  readonly symptoms: readonly string[];
  /** Since when the root and every symptom have been clear; unset while anything fires or data is missing. */
  readonly clearSince?: string;
  /** How often it went clear and fired again within the hold-down. */
  readonly flaps: number;
  /** When the first page or ticket went out; unset while a maintenance window holds it back. */
  readonly notifiedAt?: string;
  readonly lastNotifiedAt?: string;
  readonly paged: boolean;
  readonly notifications: number;
  readonly reminders: number;
  /** Latest evidence per member rule, from the last step it fired. */
  readonly evidence: Readonly<Record<string, readonly Evidence[]>>;
  /**
   * The fleet incident it belongs to: the same root cause, at the same severity, on the clusters that started firing
   * while that fleet incident was young (see stages/group.ts). Unset on an incident stored before fleet grouping,
   * which is a fleet incident of its own.
   */
  readonly group?: IncidentGroup;
  /**
   * When its root and page-level symptoms had stayed clear for the hold-down while other clusters of its fleet
   * incident still fired: it stays open, recovered, until the last of them recovers, so that one resolve closes them.
   */
  readonly recoveredAt?: string;
  /** Since when it has fired without going clear; a maintenance policy's `notifyAfter` counts from here. */
  readonly firingSince?: string;
  /**
   * The mute (maintenance window or silence) that holds back its first notification, or held it back until it was
   * shown (`notifiedAt`): the record stays, so that the digest can say what each silence held back.
   */
  readonly mutedBy?: MuteRecord;
  /**
   * Set when an operator resolved it by hand (`sentinel incidents resolve`): its resolve went out then, so nothing
   * more is sent about it, and it stays open, quietly, until its rules go clear as they would have without it.
   */
  readonly resolvedBy?: HandResolutionRecord;
}

/** Who resolved an incident by hand, when, and why, as the incident records it. */
export interface HandResolutionRecord {
  readonly at: string;
  readonly author: string;
  readonly reason: string;
}

/** A fleet incident, as each of its members records it. */
export interface IncidentGroup {
  /** The id of the member that opened it. */
  readonly id: string;
  readonly openedAt: string;
}

/** A mute as an incident records it: enough to say, when it is released, what held it and whose decision that was. */
export interface MuteRecord {
  /** The id of the stored silence that holds it; unset for a maintenance window. */
  readonly silence?: string;
  readonly reason: string;
  readonly author: string;
  readonly until: string;
}

export function incidentId(cluster: string, rule: string, openedAt: string): string {
  return `${cluster}/${rule}/${openedAt}`;
}

/** An incident as it opens: firing from now on, nothing attached, nothing sent. */
export function newIncident(cluster: string, rule: string, severity: Severity, openedAt: string): Incident {
  return {
    id: incidentId(cluster, rule, openedAt),
    cluster,
    rule,
    severity,
    status: 'open',
    openedAt,
    firingSince: openedAt,
    symptoms: [],
    flaps: 0,
    paged: false,
    notifications: 0,
    reminders: 0,
    evidence: {},
  };
}

export function members(incident: Incident): readonly string[] {
  return [incident.rule, ...incident.symptoms];
}

/** The fleet incident of an incident; one stored before fleet grouping is a fleet incident of its own. */
export function groupOf(incident: Incident): IncidentGroup {
  return incident.group ?? { id: incident.id, openedAt: incident.openedAt };
}

export function maxSeverity(a: Severity, b: Severity): Severity {
  return a === 'page' || b === 'page' ? 'page' : 'ticket';
}
