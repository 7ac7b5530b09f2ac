import type { Notification } from '../engine/notification.ts';
import { shortHash } from '../naming.ts';
import { largestFitting } from '../notify/fit-message.ts';
import { cutText, emailOf, IN_THE_EMAIL, withWhere } from '../notify/message-bodies.ts';
import { clusterCount, evidenceLines, hintLines } from '../notify/notification-text.ts';
import { PROTOCOL_LIMITS } from '../notify/protocol-limits.ts';

/**
 * What PagerDuty's Events API v2 and Opsgenie's Alert API are sent for a notification, as plain values, within the
 * vendors' documented limits (shared/notify/protocol-limits.ts). PagerDuty's severity is one of critical, error,
 * warning, info.
 */
const PAGERDUTY_LIMITS = PROTOCOL_LIMITS.pagerduty;
const OPSGENIE_LIMITS = PROTOCOL_LIMITS.opsgenie;

/** Clusters listed by name in a vendor's details; a fleet page over more says how many were left out. */
const LISTED_CLUSTERS = 50;

/**
 * The key a paging tool files every notification of one incident under: the fleet incident's id, which its page,
 * updates, reminders and resolve all carry whichever clusters each lists. A notification raised before that id was
 * recorded falls back to its first incident, the fleet incident's founder when it opened it. An id longer than the
 * smaller of the vendors' limits keeps its start and gets a hash of the whole, so two long ids never share a key.
 */
export function incidentKey(notification: Notification): string {
  const key = notification.group ?? notification.incidents[0] ?? notification.id;
  const limit = PAGERDUTY_LIMITS.dedupKey.max;
  if (key.length <= limit) return key;
  return `${key.slice(0, limit - 9)}#${shortHash(key)}`;
}

export interface Link {
  readonly href: string;
  readonly text: string;
}

/**
 * The links a paging tool shows beside the incident: the CloudWatch graph of the evidence, when there is one, and the
 * runbook, when `notifications.runbookBaseUrl` makes it a URL. A relative runbook path (no base URL configured) is left
 * out: PagerDuty and Opsgenie need an absolute link.
 */
export function notificationLinks(notification: Notification): Link[] {
  const links: Link[] = [];
  if (notification.graph) links.push({ href: notification.graph, text: 'Graph' });
  if (/^https?:\/\//.test(notification.runbook)) links.push({ href: notification.runbook, text: 'Runbook' });
  return links;
}

/** What changed, in the details: the description and the email have it in full. */
const CHANGES_DETAIL = 2000;

/** The first `keep` clusters, then how many more the incident counts and where they are named. */
function clusterList(notification: Notification, keep: number): string {
  const shown = notification.clusters.slice(0, keep);
  const left = clusterCount(notification) - shown.length;
  return left > 0 ? `${shown.join(', ')} (+${left} more, full list: ${IN_THE_EMAIL})` : shown.join(', ');
}

/** What the notification says beyond its title, as a vendor's key-value details, listing the first `keep` clusters. */
function details(notification: Notification, keep = LISTED_CLUSTERS): Record<string, string> {
  return {
    kind: notification.kind,
    reason: notification.reason,
    rule: notification.rule,
    clusterCount: String(clusterCount(notification)),
    clusters: clusterList(notification, keep),
    ...(notification.where?.account && { account: notification.where.account }),
    ...(notification.where?.region && { region: notification.where.region }),
    openedAt: notification.openedAt,
    at: notification.at,
    notification: notification.id,
    ...(notification.changes.length > 0 && { changes: cutText(notification.changes.join('\n'), CHANGES_DETAIL) }),
  };
}

/** Characters of key-value details as Opsgenie counts them against its total: every key and every value. */
export function detailsCharacters(record: Readonly<Record<string, string>>): number {
  return Object.entries(record).reduce((sum, [key, value]) => sum + key.length + value.length, 0);
}

export type PagerDutyAction = 'trigger' | 'resolve';

/** An Events API v2 event; the routing key is added by the adapter, which reads it from its secret or parameter. */
export interface PagerDutyEvent {
  readonly event_action: PagerDutyAction;
  readonly dedup_key: string;
  readonly payload?: {
    readonly summary: string;
    readonly source: string;
    readonly severity: 'critical' | 'warning';
    readonly timestamp: string;
    readonly component: string;
    readonly group: string;
    readonly class: string;
    readonly custom_details: Record<string, unknown>;
  };
  readonly links?: readonly Link[];
}

/**
 * A trigger carries the whole story; a resolve carries only the key, as the Events API wants it. An update or a
 * reminder is a trigger with the same key: PagerDuty adds it to the open alert instead of opening another.
 */
export function pagerDutyEvent(notification: Notification, action: PagerDutyAction): PagerDutyEvent {
  const dedup_key = incidentKey(notification);
  if (action === 'resolve') return { event_action: 'resolve', dedup_key };
  return {
    event_action: 'trigger',
    dedup_key,
    payload: {
      summary: withWhere(notification.title, notification, PAGERDUTY_LIMITS.summary.max),
      source: notification.clusters.length === 1 ? (notification.clusters[0] ?? 'fleet') : 'fleet',
      severity: notification.severity,
      timestamp: notification.at,
      component: 'kubernetes-control-plane',
      group: notification.rule,
      class: notification.rule,
      custom_details: {
        ...details(notification),
        summary: notification.summary,
        evidence: evidenceLines(notification).slice(0, LISTED_CLUSTERS),
        evidenceLines: evidenceLines(notification).length,
        whatToDo: hintLines(notification),
      },
    },
    links: notificationLinks(notification),
  };
}

/** Opsgenie's create-alert request body. */
export interface OpsgenieAlert {
  readonly message: string;
  readonly alias: string;
  readonly description: string;
  readonly priority: 'P1' | 'P3';
  readonly source: string;
  readonly entity: string;
  readonly tags: readonly string[];
  readonly details: Record<string, string>;
}

/**
 * The details of an alert within Opsgenie's total (links included): the cluster list shortens first, saying how
 * many it leaves out; the links and the counts stay.
 */
function opsgenieDetails(notification: Notification): Record<string, string> {
  const links = Object.fromEntries(notificationLinks(notification).map((link) => [link.text, link.href]));
  const render = (keep: number) => ({ ...details(notification, keep), ...links });
  const fits = (record: Record<string, string>) => detailsCharacters(record) <= OPSGENIE_LIMITS.details.max;
  const fitted = largestFitting(render, fits, {
    least: 0,
    most: Math.min(LISTED_CLUSTERS, notification.clusters.length),
  });
  if (fitted) return fitted;
  // A graph link alone past the total: the description carries it, the details keep what fits.
  return details(notification, 0);
}

export function opsgenieAlert(notification: Notification): OpsgenieAlert {
  return {
    message: withWhere(notification.title, notification, OPSGENIE_LIMITS.message.max),
    alias: incidentKey(notification),
    description: emailOf(notification, OPSGENIE_LIMITS.description.max, IN_THE_EMAIL),
    priority: notification.severity === 'critical' ? 'P1' : 'P3',
    source: 'k8s-incident-sentinel',
    entity: cutText(
      notification.clusters.length === 1 ? (notification.clusters[0] ?? 'fleet') : 'fleet',
      OPSGENIE_LIMITS.entity.max,
    ),
    tags: [notification.rule, notification.severity, ...notification.clusters.slice(0, 5)]
      .map((tag) => cutText(tag, OPSGENIE_LIMITS.tag.max))
      .slice(0, OPSGENIE_LIMITS.tags.max),
    details: opsgenieDetails(notification),
  };
}

/** An update, or a reminder, as a note on the open alert. */
export function opsgenieNote(notification: Notification): { readonly note: string; readonly source: string } {
  return { note: emailOf(notification, OPSGENIE_LIMITS.note.max, IN_THE_EMAIL), source: 'k8s-incident-sentinel' };
}

export function opsgenieClose(notification: Notification): { readonly note: string; readonly source: string } {
  return { note: cutText(notification.title, OPSGENIE_LIMITS.note.max), source: 'k8s-incident-sentinel' };
}
