import { type Incident, members } from '../engine/incident.ts';
import type { RuleSet } from '../engine/rule-set.ts';
import type { PollRecord } from '../pipeline/ports.ts';
import { isoSeconds } from '../time.ts';
import type { NearMissReport } from './digest.ts';

export interface NearMissInput {
  readonly polls: readonly PollRecord[];
  /** The week's incidents, one per cluster: a near miss that is part of one is not a miss. */
  readonly incidents: readonly Incident[];
  readonly ruleSet: RuleSet;
  readonly margin: number;
  /** A near miss this long before an incident opens is its onset, not a risk of its own. */
  readonly onsetMs: number;
}

/**
 * Rules that came within the margin of a threshold without firing, closest first, one entry per rule and cluster.
 * A near miss of a rule that an open incident on the cluster has as member or explains is that incident's story.
 */
export function nearMissReport(input: NearMissInput): NearMissReport[] {
  const incidentsOf = new Map<string, Incident[]>();
  for (const incident of input.incidents) {
    const list = incidentsOf.get(incident.cluster) ?? [];
    list.push(incident);
    incidentsOf.set(incident.cluster, list);
  }
  const byKey = new Map<string, NearMissReport>();
  for (const poll of input.polls) {
    for (const miss of poll.nearMisses) {
      const incidents = incidentsOf.get(miss.cluster) ?? [];
      if (miss.distance > input.margin || partOfIncident(incidents, miss.rule, poll.at, input)) continue;
      const key = `${miss.cluster}\u0000${miss.rule}`;
      const seen = byKey.get(key);
      const closer = !seen || miss.distance < seen.closestDistance;
      byKey.set(key, {
        rule: miss.rule,
        cluster: miss.cluster,
        polls: (seen?.polls ?? 0) + 1,
        closestDistance: closer ? miss.distance : seen.closestDistance,
        closest: closer ? miss.closest : seen.closest,
        lastAt: !seen || poll.at > Date.parse(seen.lastAt) ? isoSeconds(poll.at) : seen.lastAt,
      });
    }
  }
  return [...byKey.values()].sort(
    (a, b) =>
      a.closestDistance - b.closestDistance ||
      b.polls - a.polls ||
      a.rule.localeCompare(b.rule) ||
      a.cluster.localeCompare(b.cluster),
  );
}

function partOfIncident(incidents: readonly Incident[], rule: string, at: number, input: NearMissInput): boolean {
  return incidents.some(
    (incident) =>
      Date.parse(incident.openedAt) - input.onsetMs <= at &&
      at <= (incident.resolvedAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(incident.resolvedAt)) &&
      (members(incident).includes(rule) || input.ruleSet.explains(incident.rule, rule)),
  );
}
