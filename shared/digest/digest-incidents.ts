import type { Incident } from '../engine/incident.ts';
import type { RuleSet } from '../engine/rule-set.ts';
import type { NotificationRecord } from '../pipeline/ports.ts';
import { isoSeconds } from '../time.ts';
import type { DigestIncident } from './digest.ts';
import type { DigestWeek } from './iso-week.ts';

/**
 * The week's incidents as on-call lived them: the incidents of one fleet incident (one root cause on several
 * clusters, paged once) are one entry, and an incident merged into another is part of it. Incidents stored before
 * fleet incidents existed are one entry per root cause and opening step, as they were one page. Open ones come first,
 * then pages before tickets, oldest first.
 */
export function digestIncidents(
  incidents: readonly Incident[],
  notifications: readonly NotificationRecord[],
  week: DigestWeek,
  ruleSet: RuleSet,
): DigestIncident[] {
  // An incident merged into its late-identified cause is part of that cause's story, notifications included.
  const hostOf = new Map(incidents.flatMap((i) => (i.mergedInto === undefined ? [] : [[i.id, i.mergedInto] as const])));
  const groups = new Map<string, Incident[]>();
  for (const incident of incidents) {
    if (incident.mergedInto !== undefined) continue;
    const key = incident.group ? `group\u0000${incident.group.id}` : `${incident.rule}\u0000${incident.openedAt}`;
    const group = groups.get(key) ?? [];
    group.push(incident);
    groups.set(key, group);
  }
  const sentAbout = new Map<string, Set<string>>();
  for (const { notification } of notifications) {
    for (const id of notification.incidents.map((id) => hostOf.get(id) ?? id)) {
      const sent = sentAbout.get(id) ?? new Set();
      sent.add(notification.id);
      sentAbout.set(id, sent);
    }
  }
  return [...groups.values()]
    .map((group) => entryOf(group, sentAbout, week, ruleSet))
    .sort(
      (a, b) =>
        Number(b.status === 'open') - Number(a.status === 'open') ||
        Number(b.severity === 'page') - Number(a.severity === 'page') ||
        a.openedAt.localeCompare(b.openedAt) ||
        a.id.localeCompare(b.id),
    );
}

function entryOf(
  group: readonly Incident[],
  sentAbout: ReadonlyMap<string, ReadonlySet<string>>,
  week: DigestWeek,
  ruleSet: RuleSet,
): DigestIncident {
  const sorted = [...group].sort((a, b) => a.cluster.localeCompare(b.cluster));
  // The fleet incident opened with its earliest cluster.
  const first = [...sorted].sort((a, b) => a.openedAt.localeCompare(b.openedAt))[0] as Incident;
  const opened = Date.parse(first.openedAt);
  const resolvedTimes = sorted.map((i) => (i.resolvedAt === undefined ? undefined : Date.parse(i.resolvedAt)));
  // The entry is open if any of its clusters was still open when the week ended.
  const lastResolved = resolvedTimes.some((t) => t === undefined || t >= week.to)
    ? undefined
    : Math.max(...(resolvedTimes as number[]));
  const notifications = new Set(sorted.flatMap((i) => [...(sentAbout.get(i.id) ?? [])]));
  return {
    id: first.id,
    incidents: sorted.map((i) => i.id),
    rule: first.rule,
    title: ruleSet.get(first.rule)?.title ?? first.rule,
    severity: sorted.some((i) => i.severity === 'page') ? 'page' : 'ticket',
    status: lastResolved === undefined ? 'open' : 'resolved',
    clusters: sorted.map((i) => i.cluster),
    symptoms: [...new Set(sorted.flatMap((i) => i.symptoms))],
    openedAt: first.openedAt,
    ...(lastResolved !== undefined && { resolvedAt: isoSeconds(lastResolved) }),
    openedBeforeWeek: opened < week.from,
    openForMs: (lastResolved ?? week.to) - opened,
    flaps: Math.max(...sorted.map((i) => i.flaps)),
    notifications: notifications.size,
  };
}
