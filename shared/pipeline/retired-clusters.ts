import type { Incident } from '../engine/incident.ts';
import type { Notification } from '../engine/notification.ts';
import type { ClusterRule } from '../engine/rule-set.ts';
import type { EvaluatedCluster } from '../engine/step.ts';
import type { WatchPlan } from './watch-plan.ts';

/**
 * Open incidents the configuration no longer backs: of a cluster removed from it, or of a rule removed from it (or
 * renamed) for their cluster. No read would ever resolve an incident of a removed cluster: it stayed open for good, a
 * reminder named it every few hours, and its fleet incident absorbed the next outage of the clusters still watched
 * without a page. `observations` has the step see each such cluster that this step does not read, with the rules it
 * still has and nothing firing, so that these incidents recover at once and resolve with their fleet incident;
 * `notes` says why, by incident id, for the notifications that name them.
 */
export interface Retirements {
  readonly observations: readonly EvaluatedCluster[];
  readonly notes: ReadonlyMap<string, string>;
}

export function retirements(plan: WatchPlan, incidents: readonly Incident[], read: ReadonlySet<string>): Retirements {
  const rulesOf = new Map(plan.clusters.map((c) => [c.name, c.rules]));
  const notes = new Map<string, string>();
  const clusters = new Map<string, readonly ClusterRule[]>();
  for (const incident of incidents) {
    if (incident.status !== 'open') continue;
    const rules = rulesOf.get(incident.cluster);
    if (rules === undefined) {
      notes.set(incident.id, retiredClusterNote(incident.cluster));
    } else if (!rules.some((r) => r.rule.id === incident.rule)) {
      notes.set(incident.id, retiredRuleNote(incident.rule, incident.cluster));
    } else {
      continue;
    }
    if (!read.has(incident.cluster)) clusters.set(incident.cluster, rules ?? []);
  }
  const observations = [...clusters].map(([cluster, rules]) => ({
    cluster,
    rules,
    reading: { cluster, findings: [], firing: new Set<string>(), severe: new Map<string, string>() },
  }));
  return { observations, notes };
}

export function retiredClusterNote(cluster: string): string {
  return `${cluster} is no longer in the configuration: its incidents are closed`;
}

export function retiredRuleNote(rule: string, cluster: string): string {
  return `the rule ${rule} is no longer configured for ${cluster}: its incident is closed`;
}

/** A notification with the note of each retired incident it names; the same notification when it names none. */
export function withRetirementNotes(notification: Notification, notes: ReadonlyMap<string, string>): Notification {
  const named = [...new Set(notification.incidents.flatMap((id) => notes.get(id) ?? []))];
  if (named.length === 0) return notification;
  return { ...notification, changes: [...notification.changes, ...named] };
}
