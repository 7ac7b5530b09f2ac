import type { Notification } from '../engine/notification.ts';
import { shortHash } from '../naming.ts';
import { asciiLine, emailOf } from '../notify/message-bodies.ts';
import { evidenceLines, hintLines } from '../notify/notification-text.ts';

/**
 * What PagerDuty's Events API v2 and Opsgenie's Alert API are sent for a notification, as plain values. The limits
 * are the vendors' own:
 * - PagerDuty: `dedup_key` at most 255 characters, `payload.summary` at most 1024, severity one of critical, error,
 *   warning, info (https://developer.pagerduty.com/docs/events-API-v2/trigger-events/);
 * - Opsgenie: `message` at most 130 characters, `alias` at most 512, `description` at most 15,000, at most 20 tags
 *   of at most 50 characters, a note at most 25,000 (https://docs.opsgenie.com/docs/alert-api).
 */
export const PAGERDUTY_LIMITS = { dedupKey: 255, summary: 1024 } as const;
export const OPSGENIE_LIMITS = {
  message: 130,
  alias: 512,
  description: 15_000,
  tag: 50,
  tags: 20,
  note: 25_000,
} as const;

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
  if (key.length <= PAGERDUTY_LIMITS.dedupKey) return key;
  return `${key.slice(0, PAGERDUTY_LIMITS.dedupKey - 9)}#${shortHash(key)}`;
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

function clusterList(notification: Notification): string {
  const { clusters } = notification;
  const listed = clusters.slice(0, LISTED_CLUSTERS).join(', ');
  return clusters.length > LISTED_CLUSTERS ? `${listed} (+${clusters.length - LISTED_CLUSTERS} more)` : listed;
}

/** What the notification says beyond its title, as a vendor's key-value details. */
function details(notification: Notification): Record<string, string> {
  return {
    kind: notification.kind,
    reason: notification.reason,
    rule: notification.rule,
    clusters: clusterList(notification),
    openedAt: notification.openedAt,
    at: notification.at,
    notification: notification.id,
    ...(notification.changes.length > 0 && { changes: notification.changes.join('\n') }),
  };
}

export type PagerDutyAction = 'trigger' | 'resolve';

/** An Events API v2 event; the routing key is added by the adapter, which reads it from Secrets Manager. */
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
      summary: asciiLine(notification.title, PAGERDUTY_LIMITS.summary),
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

export function opsgenieAlert(notification: Notification): OpsgenieAlert {
  const links = notificationLinks(notification);
  return {
    message: asciiLine(notification.title, OPSGENIE_LIMITS.message),
    alias: incidentKey(notification),
    description: cut(emailOf(notification), OPSGENIE_LIMITS.description),
    priority: notification.severity === 'critical' ? 'P1' : 'P3',
    source: 'k8s-incident-sentinel',
    entity: notification.clusters.length === 1 ? (notification.clusters[0] ?? 'fleet') : 'fleet',
    tags: [notification.rule, notification.severity, ...notification.clusters.slice(0, 5)]
      .map((tag) => cut(tag, OPSGENIE_LIMITS.tag))
      .slice(0, OPSGENIE_LIMITS.tags),
    details: { ...details(notification), ...Object.fromEntries(links.map((link) => [link.text, link.href])) },
  };
}

/** An update, or a reminder, as a note on the open alert. */
export function opsgenieNote(notification: Notification): { readonly note: string; readonly source: string } {
  return { note: cut(emailOf(notification), OPSGENIE_LIMITS.note), source: 'k8s-incident-sentinel' };
}

export function opsgenieClose(notification: Notification): { readonly note: string; readonly source: string } {
  return { note: cut(notification.title, OPSGENIE_LIMITS.note), source: 'k8s-incident-sentinel' };
}

function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 3)}...`;
}
