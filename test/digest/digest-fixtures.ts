import { buildDigest, type DigestInput } from '../../shared/digest/build-digest.ts';
import { costModel } from '../../shared/digest/cost-model.ts';
import type { Digest } from '../../shared/digest/digest.ts';
import { weekOf } from '../../shared/digest/iso-week.ts';
import { columns, EMAIL_COLUMNS } from '../../shared/digest/text-layout.ts';
import type { Incident } from '../../shared/engine/incident.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import type { Activity, NotificationRecord, PollRecord } from '../../shared/pipeline/ports.ts';
import { isoSeconds } from '../../shared/time.ts';
import { defaultRuleSet, notificationAt } from '../support/engine-fixtures.ts';

/** Monday 2024-05-06 to Monday 2024-05-13, UTC. */
export const WEEK = weekOf('2024-W19', 'UTC');
export const MINUTE = 60_000;

/** An instant `minutes` into the digest's week. */
export function weekMinute(minutes: number): number {
  return WEEK.from + minutes * MINUTE;
}

export const NO_ACTIVITY: Activity = { incidents: [], notifications: [], polls: [] };

/** An incident with every field a test does not care about filled in. */
export function incidentOf(
  fields: Pick<Incident, 'cluster' | 'rule' | 'openedAt'> & Partial<Omit<Incident, 'id'>>,
): Incident {
  return {
    id: `${fields.cluster}/${fields.rule}/${fields.openedAt}`,
    severity: 'ticket',
    status: fields.resolvedAt === undefined ? 'open' : 'resolved',
    symptoms: [],
    flaps: 0,
    paged: false,
    notifications: 1,
    reminders: 0,
    evidence: {},
    ...fields,
  };
}

/** The page or ticket an incident opened with, delivered at the first attempt. */
export function openedWith(incident: Incident, fields: Partial<NotificationRecord> = {}): NotificationRecord {
  const notification: Notification = notificationAt({
    at: incident.openedAt,
    kind: incident.severity,
    rule: incident.rule,
    clusters: [incident.cluster],
    incidents: [incident.id],
    severity: incident.severity === 'page' ? 'critical' : 'warning',
  });
  return { notification, status: 'delivered', attempts: 1, deliveredAt: Date.parse(incident.openedAt), ...fields };
}

/** One poll a minute from `from` (included) to `to` (excluded), as a healthy deployment records them. */
export function pollsBetween(from: number, to: number, fields: Partial<PollRecord> = {}): PollRecord[] {
  const polls: PollRecord[] = [];
  for (let at = from; at < to; at += MINUTE) {
    polls.push({
      at,
      owner: `request-${at}`,
      claim: 'claimed',
      startedAt: at + 3 * MINUTE,
      lateMs: 0,
      durationMs: 0,
      clusters: 1,
      polled: 1,
      metricsRequested: 0,
      findings: 0,
      created: 0,
      delivered: 0,
      deliveryFailures: 0,
      unreadableClusters: 0,
      nearMisses: [],
      ...fields,
    });
  }
  return polls;
}

/** The digest of the fixture week for a deployment called sentinel-test, with the default rules. */
export function digestOf(activity: Activity, fields: Partial<DigestInput> = {}): Digest {
  return buildDigest({
    activity,
    previous: NO_ACTIVITY,
    week: WEEK,
    ruleSet: defaultRuleSet(),
    costModel: costModel(512),
    source: { kind: 'deployment', name: 'sentinel-test' },
    ...fields,
  });
}

export function isoMinute(minutes: number): string {
  return isoSeconds(weekMinute(minutes));
}

/** Lines of an email body wider than an email reads well. */
export function wideLines(text: string): string[] {
  return text.split('\n').filter((line) => columns(line) > EMAIL_COLUMNS);
}

/** Text with its line breaks and indents folded into single spaces, to find a sentence wherever it wraps. */
export function flowing(text: string): string {
  return text.replace(/\s+/g, ' ');
}
