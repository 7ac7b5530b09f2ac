import { shortHash } from '../naming.ts';
import { type GraphSettings, graphLink } from '../notify/graph-link.ts';
import type { Evidence } from './evaluate-condition.ts';
import { type ClusterFacts, hintsForClusters } from './hint-scope.ts';
import { type Incident, maxSeverity, members } from './incident.ts';
import {
  alertSeverity,
  type ClusterEvidence,
  type ClusterWhere,
  type Notification,
  type NotificationKind,
  type NotificationReason,
  notificationTitle,
} from './notification.ts';
import type { Rule } from './rule.ts';
import type { RuleSet } from './rule-set.ts';

/** What the dedup stage decided to send (`rule` is the fleet incident's root), and what the text is made from. */
export interface ComposeInput extends Pick<Notification, 'at' | 'kind' | 'reason' | 'rule' | 'changes'> {
  /** The incidents the notification is about, one per cluster. */
  readonly about: readonly Incident[];
  /** The fleet incident's id. */
  readonly group: string;
  readonly ruleSet: RuleSet;
  readonly runbookBaseUrl: string;
  readonly graph?: GraphSettings;
  readonly factsOf: (cluster: string) => ClusterFacts | undefined;
  /** Where a cluster runs, as far as it is known. */
  readonly whereOf?: (cluster: string) => ClusterWhere | undefined;
  /** Each cluster's Region, where known: a rule grouped per Region names it in the title. */
  readonly regionOf?: (cluster: string) => string | undefined;
}

/** What a notification about some incidents of one fleet incident says: the clusters, their evidence, what to do. */
export function composeNotification(input: ComposeInput): Notification {
  const { about, at, kind, reason } = input;
  const rule = input.ruleSet.get(input.rule) ?? retiredRule(input.rule);
  const clusters = [...new Set(about.map((i) => i.cluster))];
  const incidents = about.map((i) => i.id);
  const symptoms = [...new Set(about.flatMap((i) => i.symptoms))];
  const evidence: ClusterEvidence[] = about.flatMap((incident) =>
    members(incident).flatMap((id) => {
      const items: readonly Evidence[] = (incident.evidence[id] ?? []).filter((e) => e.passed);
      return items.length > 0 ? [{ cluster: incident.cluster, incident: incident.id, rule: id, items }] : [];
    }),
  );
  const regions = new Set(clusters.map((cluster) => input.regionOf?.(cluster)));
  const [region] = regions;
  const title = notificationTitle(kind, reason, rule, clusters, regions.size === 1 ? region : undefined);
  const where = clusters[0] === undefined ? undefined : input.whereOf?.(clusters[0]);
  const openedAt = about.map((i) => i.openedAt).sort()[0] ?? at;
  const graph =
    input.graph &&
    graphLink(
      {
        title,
        kind,
        at,
        openedAt,
        // Every comparison last evaluated, met or not: a resolve graphs what it saw while the incident was open.
        evidence: about.flatMap((incident) =>
          members(incident).flatMap((id) =>
            (incident.evidence[id] ?? []).map((item) => ({ cluster: incident.cluster, rule: id, item })),
          ),
        ),
        ruleSet: input.ruleSet,
      },
      input.graph,
    );
  return {
    id: `${at}/${kind}/${rule.id}/${shortHash(incidents.join(','))}`,
    at,
    kind,
    reason,
    severity: alertSeverity(about.reduce((max, i) => maxSeverity(max, i.severity), 'ticket' as Incident['severity'])),
    rule: rule.id,
    title,
    summary: rule.summary,
    clusters,
    ...(where && (where.account || where.region) && { where }),
    incidents,
    group: input.group,
    openedAt,
    symptoms,
    changes: input.changes,
    causalChain: symptoms.map((symptom) => input.ruleSet.chain(rule.id, symptom)),
    evidence,
    hints: hintsForClusters(rule.hints, clusters.map(input.factsOf)),
    runbook: `${input.runbookBaseUrl}${rule.runbook}`,
    ...(graph && { graph }),
  };
}

/**
 * What an incident says when its root rule was removed from the configuration while it was open: it resolves at
 * once (no rule keeps it alive), and its resolve must still go out rather than stop the whole poll.
 */
function retiredRule(id: string): Pick<Rule, 'id' | 'title' | 'summary' | 'hints' | 'runbook' | 'perRegion'> {
  return {
    id,
    title: `Rule ${id} (no longer configured)`,
    summary: `The rule ${id} was removed from the configuration while this incident was open, so it is closed.`,
    hints: [],
    runbook: '',
  };
}

/** An incident as on-call has now been told of it by a notification of `kind` and `reason`. */
export function markShown(
  incident: Incident,
  at: string,
  kind: NotificationKind,
  reason: NotificationReason,
): Incident {
  // A mute that held it back stays on record (the weekly digest lists what each silence held back); once shown,
  // no mute holds it any more (see muteStage).
  return {
    ...incident,
    notifiedAt: incident.notifiedAt ?? at,
    lastNotifiedAt: at,
    paged: incident.paged || kind === 'page',
    notifications: incident.notifications + 1,
    reminders: incident.reminders + (reason === 'reminder' ? 1 : 0),
  };
}
