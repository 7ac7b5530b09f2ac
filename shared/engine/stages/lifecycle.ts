import { isoSeconds } from '../../time.ts';
import type { Verdict } from '../evaluate-condition.ts';
import { type Incident, members } from '../incident.ts';
import type { ClusterRule } from '../rule-set.ts';
import type { Finding } from './evaluate.ts';

export interface LifecycleInput {
  readonly at: number;
  /** One cluster's incidents after correlation. */
  readonly incidents: readonly Incident[];
  /** The finding of every rule this step read on the cluster; a configured rule without one was not read. */
  readonly findings: readonly Finding[];
  /** The cluster's rules as configured (severity and hold-down after overrides). */
  readonly rules: readonly ClusterRule[];
}

/**
 * Lifecycle: an incident lives while its root or a page-level symptom fires, and recovers once they have all stayed
 * clear for the root's hold-down. Its one reason to hold a resolve back is the hold-down: a flap inside it is the
 * same incident. Ticket-level symptoms are context, so their long windows never hold a page open; missing data is
 * not evidence of recovery, so an `unknown` restarts the hold-down. A rule this step did not read (a minute read
 * covers only the short windows) says nothing: unless another vital rule fires, the incident waits for a read that
 * covers it.
 *
 * A recovered incident stays open, marked `recoveredAt`, until the group stage sees every cluster of its fleet
 * incident recovered and resolves them together. Incidents this step did not change are returned as they were.
 */
export function advanceLifecycle(input: LifecycleInput): Incident[] {
  const at = isoSeconds(input.at);
  const verdictOf = new Map(input.findings.map((f) => [f.rule, f]));
  const configOf = new Map(input.rules.map((r) => [r.rule.id, r]));
  return input.incidents.map((incident) => {
    if (incident.status !== 'open') return incident;
    const vital = members(incident).filter((id) => id === incident.rule || configOf.get(id)?.severity === 'page');
    const verdicts: (Verdict | 'unread')[] = vital.map(
      (id) => verdictOf.get(id)?.verdict ?? (configOf.has(id) ? 'unread' : 'unmet'),
    );
    if (verdicts.includes('met')) {
      const evidence = { ...incident.evidence };
      for (const id of members(incident)) {
        const finding = verdictOf.get(id);
        if (finding?.verdict === 'met') evidence[id] = finding.evidence;
      }
      const flapped = incident.clearSince !== undefined;
      const { clearSince: _clear, recoveredAt: _recovered, ...firing } = incident;
      return {
        ...firing,
        flaps: incident.flaps + (flapped ? 1 : 0),
        firingSince: flapped ? at : (incident.firingSince ?? incident.openedAt),
        evidence,
      };
    }
    if (verdicts.includes('unread')) return incident;
    if (verdicts.includes('unknown')) {
      // Missing data is not evidence of recovery: the hold-down starts again once data says "clear".
      if (incident.clearSince === undefined) return incident;
      const { clearSince: _clear, recoveredAt: _recovered, ...unsure } = incident;
      return unsure;
    }
    if (incident.recoveredAt !== undefined) return incident;
    const clearSince = incident.clearSince ?? at;
    const holdDownMs = configOf.get(incident.rule)?.holdDownMs ?? 0;
    if (input.at - Date.parse(clearSince) >= holdDownMs) return { ...incident, clearSince, recoveredAt: at };
    return incident.clearSince === undefined ? { ...incident, clearSince } : incident;
  });
}
