import { shortHash } from '../naming.ts';
import { isoSeconds } from '../time.ts';
import { type ConditionResult, type Evidence, evaluateCondition } from './evaluate-condition.ts';
import { type ClusterFacts, hintsForClusters } from './hint-scope.ts';
import { type Incident, incidentId, maxSeverity, members } from './incident.ts';
import { allowsNotification } from './maintenance.ts';
import {
  alertSeverity,
  type ClusterEvidence,
  type Notification,
  type NotificationKind,
  type NotificationReason,
  notificationTitle,
} from './notification.ts';
import type { Rule } from './rule.ts';
import type { ClusterRule, RuleSet } from './rule-set.ts';
import type { SignalWindow } from './signal-window.ts';

/** What the engine knows about one cluster at one step. */
export interface ClusterObservation {
  readonly cluster: string;
  readonly window: SignalWindow;
  readonly rules: readonly ClusterRule[];
  readonly inMaintenance: boolean;
  /** What the configuration says about the cluster, to fill in and choose its pages' hints; unknown without one. */
  readonly facts?: ClusterFacts;
}

export interface EngineSettings {
  /** How long an open page waits before it is re-sent as a reminder. */
  readonly renotifyMs: number;
  /** Prefix of runbook links; a rule's runbook path is appended. */
  readonly runbookBaseUrl: string;
}

/** One rule's verdict on one cluster at one step. */
export interface Finding extends ConditionResult {
  readonly cluster: string;
  readonly rule: string;
}

export interface StepInput {
  readonly at: number;
  readonly ruleSet: RuleSet;
  readonly clusters: readonly ClusterObservation[];
  /** The open incidents of these clusters, as the store holds them. */
  readonly incidents: readonly Incident[];
  readonly settings: EngineSettings;
}

export interface StepOutput {
  /** Every incident this step opened, changed or resolved, in its new state. */
  readonly changed: readonly Incident[];
  /** Open incidents after the step (changed or not). */
  readonly open: readonly Incident[];
  readonly notifications: readonly Notification[];
  readonly findings: readonly Finding[];
}

/**
 * A cause's signals can lag its symptoms by a few minutes, so a cause that shows up shortly after takes over the
 * symptom's incident. An incident older than this is a story of its own (a days-old latency ticket is not the
 * outage that follows it) and stays separate.
 */
const REROOT_WINDOW_MS = 30 * 60_000;

/** What one incident has to say at the end of a step, before notifications are grouped across clusters. */
interface Outgoing {
  readonly incident: Incident;
  readonly kind: NotificationKind;
  readonly reason: NotificationReason;
  readonly changes: readonly string[];
}

/**
 * One evaluation step: evaluate every rule on every cluster, correlate the findings into incidents, move each
 * incident through its lifecycle, and say what must be sent. Pure: the same input always gives the same output,
 * which is what lets a retried or overlapping poll produce identical, de-duplicable notifications.
 */
export function step(input: StepInput): StepOutput {
  const at = isoSeconds(input.at);
  const findings: Finding[] = [];
  const changed: Incident[] = [];
  const open: Incident[] = [];
  const outgoing: Outgoing[] = [];
  for (const observation of input.clusters) {
    const previous = input.incidents.filter((i) => i.cluster === observation.cluster && i.status === 'open');
    const result = advanceCluster(observation, previous, input, at);
    findings.push(...result.findings);
    changed.push(...result.changed);
    open.push(...result.open);
    outgoing.push(...result.outgoing);
  }
  return { changed, open, notifications: groupAcrossClusters(outgoing, input, at), findings };
}

function advanceCluster(observation: ClusterObservation, previous: readonly Incident[], input: StepInput, at: string) {
  const { ruleSet } = input;
  const now = input.at;
  const findings: Finding[] = observation.rules.map(({ rule, params }) => ({
    cluster: observation.cluster,
    rule: rule.id,
    ...evaluateCondition(rule.when, observation.window, params),
  }));
  const verdictOf = new Map(findings.map((f) => [f.rule, f]));
  const configOf = new Map(observation.rules.map((r) => [r.rule.id, r]));
  const firing = findings.filter((f) => f.verdict === 'met');
  const firingIds = new Set(firing.map((f) => f.rule));

  const incidents = new Map<string, Incident>(previous.map((i) => [i.id, i]));
  const touched = new Set<string>();
  const changes = new Map<string, { reason: NotificationReason; changes: string[] }>();
  const update = (next: Incident) => {
    incidents.set(next.id, next);
    touched.add(next.id);
  };
  const noteChange = (id: string, reason: NotificationReason, what: string) => {
    const entry = changes.get(id) ?? { reason, changes: [] };
    entry.changes.push(what);
    changes.set(id, entry);
  };
  const openIncidents = () => [...incidents.values()].filter((i) => i.status === 'open');

  // Correlate: findings arrive explainers first, so a cause opens its incident before its symptoms look for one.
  for (const finding of firing) {
    const severity = configOf.get(finding.rule)?.severity ?? 'ticket';
    if (openIncidents().some((i) => members(i).includes(finding.rule))) continue;
    const host = openIncidents().find((i) => ruleSet.explains(i.rule, finding.rule));
    if (host) {
      update({ ...host, symptoms: [...host.symptoms, finding.rule], severity: maxSeverity(host.severity, severity) });
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
      update({
        ...oldest,
        rule: finding.rule,
        symptoms: [...new Set(explained.flatMap((i) => [i.rule, ...i.symptoms]))],
        severity: explained.reduce((max, i) => maxSeverity(max, i.severity), severity),
        paged: explained.some((i) => i.paged),
      });
      noteChange(oldest.id, 'cause-identified', `cause identified: ${finding.rule} (was ${oldest.rule})`);
      for (const incident of absorbed) {
        update({ ...incident, status: 'resolved', resolvedAt: at, mergedInto: oldest.id });
        noteChange(incident.id, 'merged', `merged into ${oldest.id}, caused by ${finding.rule}`);
      }
      continue;
    }
    update({
      id: incidentId(observation.cluster, finding.rule, at),
      cluster: observation.cluster,
      rule: finding.rule,
      severity,
      status: 'open',
      openedAt: at,
      symptoms: [],
      flaps: 0,
      paged: false,
      notifications: 0,
      reminders: 0,
      evidence: {},
    });
  }

  // Lifecycle: an incident lives while its root or a page-level symptom fires, and resolves after they all stay
  // clear for the hold-down. Ticket-level symptoms are context: their long windows must not hold a page open.
  for (const incident of openIncidents()) {
    const vital = members(incident).filter((id) => id === incident.rule || configOf.get(id)?.severity === 'page');
    const verdicts = vital.map((id) => verdictOf.get(id)?.verdict ?? 'unmet');
    const evidence = { ...incident.evidence };
    for (const id of members(incident)) {
      const finding = verdictOf.get(id);
      if (finding?.verdict === 'met') evidence[id] = finding.evidence;
    }
    if (verdicts.includes('met')) {
      const flapped = incident.clearSince !== undefined;
      update({ ...incident, clearSince: undefined, flaps: incident.flaps + (flapped ? 1 : 0), evidence });
    } else if (verdicts.includes('unknown')) {
      // Missing data is not evidence of recovery: the hold-down starts again once data says "clear".
      if (incident.clearSince !== undefined) update({ ...incident, clearSince: undefined });
    } else {
      const clearSince = incident.clearSince ?? at;
      const holdDownMs = configOf.get(incident.rule)?.holdDownMs ?? 0;
      if (now - Date.parse(clearSince) >= holdDownMs) {
        update({ ...incident, clearSince, status: 'resolved', resolvedAt: at });
      } else if (incident.clearSince === undefined) {
        update({ ...incident, clearSince });
      }
    }
  }

  // Notify: at most one notification per incident per step.
  const outgoing: Outgoing[] = [];
  for (const id of [...incidents.keys()]) {
    const incident = incidents.get(id) as Incident;
    const decision = decide(incident, changes.get(id), observation, firingIds, input, at);
    if (!decision) continue;
    const notified = decision.kind === 'page' || decision.kind === 'ticket';
    const sent: Incident = {
      ...incident,
      notifiedAt: incident.notifiedAt ?? at,
      lastNotifiedAt: at,
      paged: incident.paged || decision.kind === 'page',
      notifications: incident.notifications + 1,
      reminders: incident.reminders + (decision.reason === 'reminder' ? 1 : 0),
    };
    update(notified || incident.notifiedAt ? sent : incident);
    outgoing.push({ ...decision, incident: sent });
  }

  const all = [...incidents.values()];
  return {
    findings,
    changed: all.filter((i) => touched.has(i.id)),
    open: all.filter((i) => i.status === 'open'),
    outgoing,
  };
}

function decide(
  incident: Incident,
  change: { reason: NotificationReason; changes: string[] } | undefined,
  observation: ClusterObservation,
  firing: ReadonlySet<string>,
  input: StepInput,
  at: string,
): Omit<Outgoing, 'incident'> | undefined {
  if (incident.status === 'resolved') {
    if (!incident.notifiedAt) return undefined;
    return incident.mergedInto
      ? { kind: 'resolve', reason: 'merged', changes: change?.changes ?? [] }
      : { kind: 'resolve', reason: 'resolved', changes: [] };
  }
  if (!incident.notifiedAt) {
    // Held back by maintenance: when it is released, only a finding that still fires is news.
    if (!members(incident).some((id) => firing.has(id))) return undefined;
    const muted =
      observation.inMaintenance &&
      !members(incident).some((id) => {
        const rule = input.ruleSet.get(id);
        return rule !== undefined && allowsNotification(rule.maintenance, firing);
      });
    if (muted) return undefined;
    const kind = incident.severity === 'page' ? 'page' : 'ticket';
    const reason =
      incident.openedAt === at ? 'opened' : observation.inMaintenance ? 'maintenance-override' : 'maintenance-ended';
    return { kind, reason, changes: [] };
  }
  if (incident.severity === 'page' && !incident.paged) {
    return { kind: 'page', reason: 'escalated', changes: change?.changes ?? [] };
  }
  if (change) return { kind: 'update', reason: change.reason, changes: change.changes };
  const since = Date.parse(incident.lastNotifiedAt ?? incident.openedAt);
  if (incident.severity === 'page' && input.at - since >= input.settings.renotifyMs) {
    return { kind: 'update', reason: 'reminder', changes: [] };
  }
  return undefined;
}

/**
 * What an incident says when its root rule was removed from the configuration while it was open: it resolves at
 * once (no rule keeps it alive), and its resolve must still go out rather than stop the whole poll.
 */
function retiredRule(id: string): Pick<Rule, 'id' | 'title' | 'summary' | 'hints' | 'runbook'> {
  return {
    id,
    title: `Rule ${id} (no longer configured)`,
    summary: `The rule ${id} was removed from the configuration while this incident was open, so it is closed.`,
    hints: [],
    runbook: '',
  };
}

/** The same rule saying the same thing on many clusters at once becomes one notification that lists them. */
function groupAcrossClusters(outgoing: readonly Outgoing[], input: StepInput, at: string): Notification[] {
  const factsOf = new Map(input.clusters.map((observation) => [observation.cluster, observation.facts]));
  const groups = new Map<string, Outgoing[]>();
  for (const item of outgoing) {
    const key = [item.kind, item.reason, item.incident.rule, item.incident.severity, item.changes.join('|')].join(
      '\u0000',
    );
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return [...groups.values()].map((items) => {
    const first = items[0] as Outgoing;
    const rule = input.ruleSet.get(first.incident.rule) ?? retiredRule(first.incident.rule);
    const clusters = [...new Set(items.map((i) => i.incident.cluster))];
    const incidents = items.map((i) => i.incident.id);
    const symptoms = [...new Set(items.flatMap((i) => i.incident.symptoms))];
    const evidence: ClusterEvidence[] = items.flatMap(({ incident }) =>
      members(incident).flatMap((id) => {
        const items: readonly Evidence[] = (incident.evidence[id] ?? []).filter((e) => e.passed);
        return items.length > 0 ? [{ cluster: incident.cluster, incident: incident.id, rule: id, items }] : [];
      }),
    );
    return {
      id: `${at}/${first.kind}/${rule.id}/${shortHash(incidents.join(','))}`,
      at,
      kind: first.kind,
      reason: first.reason,
      severity: alertSeverity(first.incident.severity),
      rule: rule.id,
      title: notificationTitle(first.kind, first.reason, rule, clusters),
      summary: rule.summary,
      clusters,
      incidents,
      openedAt: items.map((i) => i.incident.openedAt).sort()[0] ?? at,
      symptoms,
      changes: first.changes,
      causalChain: symptoms.map((symptom) => input.ruleSet.chain(rule.id, symptom)),
      evidence,
      hints: hintsForClusters(
        rule.hints,
        clusters.map((cluster) => factsOf.get(cluster)),
      ),
      runbook: `${input.settings.runbookBaseUrl}${rule.runbook}`,
    };
  });
}
