import { isoSeconds } from '../../time.ts';
import { type Incident, type MuteRecord, members } from '../incident.ts';
import { activeMutes, type Mute, policyRelease } from '../maintenance.ts';
import type { Labels } from '../matchers.ts';
import type { MaintenancePolicy } from '../rule.ts';
import type { ClusterReading } from './evaluate.ts';
import type { FleetGroup } from './group.ts';

/** What the mute stage says about one member of a fleet incident. */
export type MuteVerdict =
  /** On-call may be shown it; `released` says why a mute did not hold it back, `ended` which mute has let it go. */
  | {
      readonly shown: true;
      readonly released?: { readonly mute: MuteRecord; readonly why: string };
      readonly ended?: MuteRecord;
    }
  /** Held back, by `mute`. */
  | { readonly shown: false; readonly mute: MuteRecord };

export interface MuteInput {
  readonly at: number;
  /** Maintenance windows and run-time silences (one shape for both). */
  readonly mutes: readonly Mute[];
  readonly group: FleetGroup;
  readonly policyOf: (rule: string) => MaintenancePolicy | undefined;
  /** The clusters read at this step. A mute is let go only on fresh data: a cluster not read keeps what it had. */
  readonly readings: ReadonlyMap<string, ClusterReading>;
  /** Each cluster's labels, for the matchers of silences; a cluster it does not name has only its name. */
  readonly labels?: ReadonlyMap<string, Labels>;
}

export interface MuteOutput {
  /** The group's members; each one held back records the mute that holds it. */
  readonly group: FleetGroup;
  /** A verdict for each open member that on-call has not been shown and that has not recovered; others have none. */
  readonly verdicts: ReadonlyMap<string, MuteVerdict>;
}

/**
 * Mute: a member that on-call has not been shown is held back while a mute covers its cluster and root rule, unless
 * a maintenance policy of one of its rules lets it through (see `policyRelease`), or the rule is never muted. A
 * silence that says it includes pages holds back everything it covers, whatever the policies say. A member shown
 * despite a covering mute names it (`released`), so that the page says which silence it overrode. When the mute is
 * over, or a policy lets it through, it is shown only if it still fires: an incident that went quiet under a mute is
 * not news.
 * Members already shown keep their updates and their resolve, as Alertmanager keeps a group's notification log.
 */
export function muteStage(input: MuteInput): MuteOutput {
  const verdicts = new Map<string, MuteVerdict>();
  const marked = input.group.members.map((incident) => {
    const verdict = verdictOf(incident, input);
    if (verdict) verdicts.set(incident.id, verdict);
    if (verdict?.shown !== false || sameMute(incident.mutedBy, verdict.mute)) return incident;
    return { ...incident, mutedBy: verdict.mute };
  });
  return { group: { ...input.group, members: marked }, verdicts };
}

function verdictOf(incident: Incident, input: MuteInput): MuteVerdict | undefined {
  if (incident.status !== 'open' || incident.notifiedAt !== undefined || incident.recoveredAt !== undefined) {
    return undefined;
  }
  const reading = input.readings.get(incident.cluster);
  const firing = reading !== undefined && members(incident).some((id) => reading.firing.has(id));
  const covering = activeMutes(
    input.mutes,
    incident.cluster,
    incident.rule,
    input.at,
    input.labels?.get(incident.cluster),
  ).sort((a, b) => Number(b.includePages ?? false) - Number(a.includePages ?? false) || b.to - a.to)[0];
  if (!covering) {
    if (!incident.mutedBy) return { shown: true };
    return firing ? { shown: true, ended: incident.mutedBy } : { shown: false, mute: incident.mutedBy };
  }
  const mute: MuteRecord = {
    ...(covering.id !== undefined && { silence: covering.id }),
    reason: covering.reason,
    author: covering.author,
    until: isoSeconds(covering.to),
  };
  if (covering.includePages) return { shown: false, mute };
  // A rule that is never muted goes through any other mute, and says which one it went through.
  const neverMuted = members(incident).find((id) => input.policyOf(id) === 'notify');
  if (neverMuted !== undefined) return { shown: true, released: { mute, why: `${neverMuted} is never muted` } };
  if (reading && firing) {
    const context = {
      firing: reading.firing,
      severe: reading.severe,
      firingForMs: input.at - Date.parse(incident.firingSince ?? incident.openedAt),
    };
    for (const rule of members(incident)) {
      const policy = input.policyOf(rule);
      const why = policy === undefined ? undefined : policyRelease(rule, policy, context);
      if (why !== undefined) return { shown: true, released: { mute, why } };
    }
  }
  return { shown: false, mute };
}

function sameMute(a: MuteRecord | undefined, b: MuteRecord): boolean {
  return (
    a !== undefined && a.silence === b.silence && a.reason === b.reason && a.author === b.author && a.until === b.until
  );
}
