import type { Evidence } from './evaluate-condition.ts';
import type { Hint, Rule, Severity } from './rule.ts';

export type NotificationKind = 'page' | 'ticket' | 'update' | 'resolve';

/** Why a notification went out, beyond its kind. */
export type NotificationReason =
  | 'opened'
  /** Held back by a maintenance window that has ended, and still firing. */
  | 'maintenance-ended'
  /** Inside a maintenance window, released because a rule it waits for (notifyWhenFiring) fired. */
  | 'maintenance-override'
  /** Closed because a late-identified cause absorbed it into its own incident. */
  | 'merged'
  | 'escalated'
  /** Clusters joined an open fleet incident: the same cause started firing on them while it was young. */
  | 'joined'
  | 'new-symptom'
  | 'cause-identified'
  | 'reminder'
  | 'resolved'
  /** Resolved by an operator (`sentinel incidents resolve`), whatever its rules still say. */
  | 'resolved-by-hand';

export interface ClusterEvidence {
  readonly cluster: string;
  readonly incident: string;
  readonly rule: string;
  readonly items: readonly Evidence[];
}

/** The account and Region a cluster runs in. */
export interface ClusterWhere {
  readonly account?: string;
  readonly region?: string;
}

/** What one page, ticket, update or resolve says; the notifier renders it for each protocol. */
export interface Notification {
  readonly id: string;
  readonly at: string;
  readonly kind: NotificationKind;
  readonly reason: NotificationReason;
  /** `critical` for a page-severity incident, `warning` for a ticket. */
  readonly severity: 'critical' | 'warning';
  readonly rule: string;
  readonly title: string;
  readonly summary: string;
  readonly clusters: readonly string[];
  /**
   * How many clusters the incident counts, on a copy cut to fit a protocol's limit that lists only the first of them
   * in `clusters`; absent when `clusters` lists every one.
   */
  readonly clustersTotal?: number;
  /**
   * Where the first listed cluster runs, for the first screen: its account and Region, each as far as the pipeline
   * knows it (the configuration, or the Region the poller runs in). Absent when neither is known, as on a scenario
   * replayed without a configuration, and on notifications stored before it was recorded.
   */
  readonly where?: ClusterWhere;
  readonly incidents: readonly string[];
  /**
   * The fleet incident this notification is about: the same on its page, updates and resolve whichever clusters each
   * lists, so paging tools key their incident on it. Absent on notifications raised before it was recorded.
   */
  readonly group?: string;
  readonly openedAt: string;
  readonly symptoms: readonly string[];
  /** New symptoms or the replaced cause, for updates. */
  readonly changes: readonly string[];
  /** Each symptom's causal path from the root, e.g. ["webhook-blackhole", "node-repair-storm"]. */
  readonly causalChain: readonly (readonly string[])[];
  readonly evidence: readonly ClusterEvidence[];
  readonly hints: readonly Hint[];
  readonly runbook: string;
  /**
   * A CloudWatch console link that graphs the evidence with its thresholds over the incident's window
   * (shared/notify/graph-link.ts); absent when there is nothing to graph, as on a test page.
   */
  readonly graph?: string;
}

/** The topic a notification is published to: `paging` for a page-level incident, `notice` for a ticket. */
export type NotificationTopic = 'paging' | 'notice';

export function topicOf(notification: Pick<Notification, 'severity'>): NotificationTopic {
  return notification.severity === 'critical' ? 'paging' : 'notice';
}

export function alertSeverity(severity: Severity): Notification['severity'] {
  return severity === 'page' ? 'critical' : 'warning';
}

export function notificationTitle(
  kind: NotificationKind,
  reason: NotificationReason,
  rule: Pick<Rule, 'title' | 'perRegion'>,
  clusters: readonly string[],
  /** The one Region of all the clusters, where known. */
  region?: string,
) {
  // A fleet title names a cluster, so that a subject or an SMS cut short still says where to look first.
  const where = clusters.length === 1 ? `on ${clusters[0]}` : `on ${clusters[0]} and ${clusters.length - 1} more`;
  // Several clusters of one Region together point at the Region: the title says so first.
  const headline =
    rule.perRegion && region && clusters.length > 1 ? rule.perRegion.title.replaceAll('{region}', region) : rule.title;
  const prefix: Partial<Record<NotificationReason, string>> = {
    resolved: 'Resolved: ',
    'resolved-by-hand': 'Resolved by hand: ',
    merged: 'Merged into its cause: ',
    reminder: 'Still firing: ',
    'new-symptom': 'Update: ',
    joined: 'Spreading: ',
    'cause-identified': 'Cause identified: ',
    escalated: 'Escalated: ',
  };
  const label = kind === 'page' || kind === 'ticket' ? (prefix[reason] ?? '') : (prefix[reason] ?? 'Update: ');
  return `${label}${headline} ${where}`;
}
