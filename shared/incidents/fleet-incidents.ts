import type { HandResolutionRecord, Incident, MuteRecord } from '../engine/incident.ts';
import { groupOf } from '../engine/incident.ts';
import type { Notification } from '../engine/notification.ts';
import type { NotificationRecord } from '../pipeline/ports.ts';

/** A fleet incident as `sentinel incidents` lists it: what on-call is paged about once, with its members. */
export interface FleetIncident {
  /** The fleet incident's id: the id of the member that opened it, which paging tools key their incident on. */
  readonly id: string;
  readonly rule: string;
  readonly severity: Incident['severity'];
  readonly openedAt: string;
  /** Its members, one per cluster, oldest first. */
  readonly members: readonly Incident[];
  /** Its notifications, oldest first, as the outbox last saw them. */
  readonly notifications: readonly NotificationRecord[];
}

/** One line of `sentinel incidents list`: what is open, where, since when, what on-call was last told. */
export interface FleetIncidentSummary {
  readonly id: string;
  readonly rule: string;
  readonly severity: Incident['severity'];
  readonly clusters: readonly string[];
  readonly openedAt: string;
  readonly ageSeconds: number;
  readonly lastNotification?: {
    readonly at: string;
    readonly kind: Notification['kind'];
    readonly reason: Notification['reason'];
    readonly status: NotificationRecord['status'];
  };
  /** What holds its first notification back, when a mute does; absent once shown or when nothing holds it. */
  readonly mutedBy?: MuteRecord;
  /** Set once an operator resolved it by hand: it stays open, quiet, until its rules go clear. */
  readonly resolvedBy?: HandResolutionRecord;
}

/** The fleet incidents the incidents belong to, newest first, each with the notifications raised about it. */
export function fleetIncidents(
  incidents: readonly Incident[],
  notifications: readonly NotificationRecord[],
): FleetIncident[] {
  const byGroup = new Map<string, Incident[]>();
  for (const incident of incidents) {
    const id = groupOf(incident).id;
    byGroup.set(id, [...(byGroup.get(id) ?? []), incident]);
  }
  return [...byGroup]
    .flatMap(([id, members]) => {
      const sorted = [...members].sort((a, b) => a.openedAt.localeCompare(b.openedAt) || a.id.localeCompare(b.id));
      const [first] = sorted;
      if (!first) return [];
      const ids = new Set(sorted.map((m) => m.id));
      return [
        {
          id,
          rule: first.rule,
          severity: sorted.some((m) => m.severity === 'page') ? 'page' : 'ticket',
          openedAt: groupOf(first).openedAt,
          members: sorted,
          notifications: notifications
            .filter((r) => (r.notification.group ?? r.notification.incidents[0]) === id || aboutAny(r, ids))
            .sort((a, b) => a.notification.at.localeCompare(b.notification.at)),
        } satisfies FleetIncident,
      ];
    })
    .sort((a, b) => b.openedAt.localeCompare(a.openedAt) || a.id.localeCompare(b.id));
}

/** A notification raised before notifications named their fleet incident is matched by the incidents it lists. */
function aboutAny(record: NotificationRecord, ids: ReadonlySet<string>): boolean {
  return record.notification.group === undefined && record.notification.incidents.some((id) => ids.has(id));
}

/** The fleet incident that `id` names: its own id, or the id of one of its members. */
export function findFleetIncident(fleet: readonly FleetIncident[], id: string): FleetIncident | undefined {
  return fleet.find((f) => f.id === id) ?? fleet.find((f) => f.members.some((m) => m.id === id));
}

export function summarize(incident: FleetIncident, now: number): FleetIncidentSummary {
  const last = incident.notifications.at(-1);
  const muted = incident.members.find((m) => m.mutedBy !== undefined && m.notifiedAt === undefined)?.mutedBy;
  const resolved = incident.members.find((m) => m.resolvedBy !== undefined)?.resolvedBy;
  return {
    id: incident.id,
    rule: incident.rule,
    severity: incident.severity,
    clusters: incident.members.map((m) => m.cluster),
    openedAt: incident.openedAt,
    ageSeconds: Math.max(0, Math.round((now - Date.parse(incident.openedAt)) / 1000)),
    ...(last && {
      lastNotification: {
        at: last.notification.at,
        kind: last.notification.kind,
        reason: last.notification.reason,
        status: last.status,
      },
    }),
    ...(muted && { mutedBy: muted }),
    ...(resolved && { resolvedBy: resolved }),
  };
}

/** `2h05m`, `3d4h`, `42s`: an age as a terminal column shows it. */
export function describeAge(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h${String(minutes % 60).padStart(2, '0')}m`;
  return `${Math.floor(hours / 24)}d${hours % 24}h`;
}

/** The lines of `sentinel incidents list`: one per fleet incident, newest first. */
export function renderIncidentList(summaries: readonly FleetIncidentSummary[]): string[] {
  if (summaries.length === 0) return ['No incident is open.'];
  return summaries.flatMap((s) => {
    const last = s.lastNotification
      ? `last ${s.lastNotification.kind} (${s.lastNotification.reason}) ${s.lastNotification.at}${s.lastNotification.status === 'delivered' ? '' : `, ${s.lastNotification.status}`}`
      : 'nothing sent yet';
    const state = s.resolvedBy
      ? `resolved by hand by ${s.resolvedBy.author} at ${s.resolvedBy.at}, rules still firing`
      : s.mutedBy
        ? `muted by ${s.mutedBy.silence === undefined ? 'maintenance' : `silence ${s.mutedBy.silence}`} until ${s.mutedBy.until}`
        : 'not muted';
    return [
      `${s.id}`,
      `  ${s.severity.toUpperCase()} ${s.rule} on ${s.clusters.join(', ')}, open ${describeAge(s.ageSeconds)} (since ${s.openedAt}); ${last}; ${state}`,
    ];
  });
}
