import { isoSeconds } from '../../time.ts';
import { type Incident, maxSeverity, members, newIncident } from '../incident.ts';
import type { NotificationReason } from '../notification.ts';
import type { ClusterRule, RuleSet } from '../rule-set.ts';
import type { Finding } from './evaluate.ts';

/**
 * A cause's signals can lag its symptoms by a few minutes, so a cause that shows up shortly after takes over the
 * symptom's incident. An incident older than this is a story of its own (a days-old latency ticket is not the
 * outage that follows it) and stays separate.
 */
export const REROOT_WINDOW_MS = 30 * 60_000;

/** What changed in an incident at this step that on-call should hear about, beyond its opening. */
export interface Change {
  readonly reason: Extract<NotificationReason, 'new-symptom' | 'cause-identified' | 'merged'>;
  readonly texts: readonly string[];
}

export interface CorrelateInput {
  readonly at: number;
  readonly cluster: string;
  readonly ruleSet: RuleSet;
  /** The cluster's rules as configured (severity after overrides). */
  readonly rules: readonly ClusterRule[];
  /** The findings that are met, explainers first. */
  readonly firing: readonly Finding[];
  /** The cluster's open incidents, as the store holds them. */
  readonly open: readonly Incident[];
}

export interface CorrelateOutput {
  /** The cluster's incidents after correlation: the open ones as they are now, new ones, and those merged away. */
  readonly incidents: readonly Incident[];
  readonly changes: ReadonlyMap<string, Change>;
  /**
   * Incidents whose root cause or severity is new at this step (opened, re-rooted, escalated): they are no longer
   * what their fleet incident is about, so the group stage places them again.
   */
  readonly regroup: ReadonlySet<string>;
}

/**
 * Correlate: one incident per root cause per cluster. Its one reason to hold a page back: a finding that an open
 * incident's root explains is a symptom of it, not a second page, and a cause that shows itself after its symptoms
 * takes their incident over instead of opening another.
 */
export function correlate(input: CorrelateInput): CorrelateOutput {
  const { ruleSet, at: now } = input;
  const at = isoSeconds(now);
  const severityOf = new Map(input.rules.map((r) => [r.rule.id, r.severity]));
  const incidents = new Map<string, Incident>(input.open.map((i) => [i.id, i]));
  const changes = new Map<string, { reason: Change['reason']; texts: string[] }>();
  const regroup = new Set<string>();
  const noteChange = (id: string, reason: Change['reason'], text: string) => {
    const entry = changes.get(id) ?? { reason, texts: [] };
    entry.texts.push(text);
    changes.set(id, entry);
  };
  const openIncidents = () => [...incidents.values()].filter((i) => i.status === 'open');

  // Findings arrive explainers first, so a cause opens its incident before its symptoms look for one.
  for (const finding of input.firing) {
    const severity = severityOf.get(finding.rule) ?? 'ticket';
    if (openIncidents().some((i) => members(i).includes(finding.rule))) continue;
    const host = openIncidents().find((i) => ruleSet.explains(i.rule, finding.rule));
    if (host) {
      const escalated = maxSeverity(host.severity, severity);
      incidents.set(host.id, { ...host, symptoms: [...host.symptoms, finding.rule], severity: escalated });
      if (escalated !== host.severity) regroup.add(host.id);
      // A ticket-level symptom is context for the incident, not news worth an update to on-call.
      if (severity === 'page') noteChange(host.id, 'new-symptom', `new symptom: ${finding.rule}`);
      continue;
    }
    const [oldest, ...absorbed] = openIncidents()
      .filter((i) => ruleSet.explains(finding.rule, i.rule) && now - Date.parse(i.openedAt) <= REROOT_WINDOW_MS)
      .sort((a, b) => a.openedAt.localeCompare(b.openedAt));
    if (oldest) {
      // The cause showed itself after its symptoms: the oldest incident keeps its identity and gains its real root,
      // and the other incidents it explains close into it, so one cause is one incident.
      const explained = [oldest, ...absorbed];
      incidents.set(oldest.id, {
        ...oldest,
        rule: finding.rule,
        symptoms: [...new Set(explained.flatMap((i) => [i.rule, ...i.symptoms]))],
        severity: explained.reduce((max, i) => maxSeverity(max, i.severity), severity),
        paged: explained.some((i) => i.paged),
      });
      regroup.add(oldest.id);
      noteChange(oldest.id, 'cause-identified', `cause identified: ${finding.rule} (was ${oldest.rule})`);
      for (const incident of absorbed) {
        incidents.set(incident.id, { ...incident, status: 'resolved', resolvedAt: at, mergedInto: oldest.id });
        noteChange(incident.id, 'merged', `merged into ${oldest.id}, caused by ${finding.rule}`);
      }
      continue;
    }
    const opened = newIncident(input.cluster, finding.rule, severity, at);
    incidents.set(opened.id, opened);
    regroup.add(opened.id);
  }
  return { incidents: [...incidents.values()], changes, regroup };
}
