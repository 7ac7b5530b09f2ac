import { isoSeconds } from '../../time.ts';
import { groupOf, type Incident, type IncidentGroup, incidentId } from '../incident.ts';
import type { Severity } from '../rule.ts';

/**
 * How incidents on several clusters become one fleet incident, after Alertmanager's grouping
 * (https://prometheus.io/docs/alerting/latest/configuration/#route): `waitMs` is `group_wait`, `intervalMs` is
 * `group_interval` (both applied by the dedup stage), and `joinWithinMs` is how young a fleet incident must be for a
 * cluster that starts firing the same rule to join it rather than page on its own; Alertmanager has no such limit,
 * since its groups never age. `groupOf` is `group_by`: clusters whose `grouping.by` labels differ never share a
 * fleet incident.
 */
export interface GroupingSettings {
  /** How long a new fleet incident waits for more clusters before its first page (`group_wait`). */
  readonly waitMs: number;
  /** How long after a fleet incident's last notification the clusters that joined it are announced (`group_interval`). */
  readonly intervalMs: number;
  /** How long after it opened a fleet incident takes in clusters that start firing its rule. */
  readonly joinWithinMs: number;
  /**
   * Each cluster's group under `grouping.by` (shared/config/cluster-labels.ts, `groupKey`): only clusters of one group
   * share a fleet incident. A cluster it does not name (or every cluster, without it) is in the group "".
   */
  readonly groupOf?: ReadonlyMap<string, string>;
  /**
   * Each cluster's Region, where the configuration (or a scenario) says it: a rule grouped per Region
   * (`Rule.perRegion`) never puts clusters of two Regions, or a cluster of unknown Region with one of a known Region,
   * in one fleet incident.
   */
  readonly regionOf?: ReadonlyMap<string, string>;
}

/** One root cause at one severity on one or more clusters: what on-call is paged about once. */
export interface FleetGroup {
  readonly id: string;
  readonly openedAt: string;
  readonly rule: string;
  readonly severity: Severity;
  /** Its incidents as they are after this step, one per cluster. */
  readonly members: readonly Incident[];
  /** Whether it closed at this step: every member recovered, or it was one incident merged into its cause. */
  readonly resolved: boolean;
}

export interface GroupInput {
  readonly at: number;
  /** The fleet's open incidents after this step's lifecycle, and those this step merged away. */
  readonly incidents: readonly Incident[];
  /** Incidents to place: opened at this step, or re-rooted or escalated so that their old fleet incident is not theirs. */
  readonly regroup: ReadonlySet<string>;
  readonly settings: Pick<GroupingSettings, 'joinWithinMs' | 'groupOf' | 'regionOf'>;
  /** Whether a rule's fleet incidents are one per Region (`Rule.perRegion`); none is without it. */
  readonly perRegion?: (rule: string) => boolean;
}

export interface GroupOutput {
  /** Every incident of the input, with its fleet incident and, where its fleet incident closed, resolved. */
  readonly incidents: readonly Incident[];
  readonly groups: readonly FleetGroup[];
}

interface Bucket {
  readonly group: IncidentGroup;
  readonly rule: string;
  readonly severity: Severity;
  readonly members: Incident[];
  readonly merged: boolean;
  /**
   * Its members' clusters and their groups under `grouping.by`, kept beside the members: a fleet-wide outage places
   * thousands of incidents, and asking each of them of every member would take the step quadratic time.
   */
  readonly clusters: Set<string>;
  readonly keys: Set<string>;
}

/**
 * Group: the same root cause at the same severity on several clusters of one group is one fleet incident. Its one
 * reason to hold a page back: a cluster that starts firing a rule while that rule's fleet incident of its group is
 * young joins it, and is announced as an update, not a page. Different root causes, and clusters of different groups
 * (`grouping.by`: staging and prod; Regions, for a rule whose cause on several clusters at once is likelier their
 * Region than each of them), never share a fleet incident, so each pages under its own dedup key: a page
 * appended to another group's open incident would notify no one where that incident was acknowledged. A fleet
 * incident closes only when its last cluster has recovered, so that one resolve closes it.
 *
 * It reads the incidents the store holds for the whole fleet, not only the clusters read at this step, so it groups
 * the same whether the clusters were read in one poll or over several.
 */
export function groupIncidents(input: GroupInput): GroupOutput {
  const at = isoSeconds(input.at);
  const buckets = new Map<string, Bucket>();
  const placed = new Map<string, Incident>();
  const keyOf = (cluster: string, rule: string) => {
    const group = input.settings.groupOf?.get(cluster) ?? '';
    return input.perRegion?.(rule) ? `${group}\u0000${input.settings.regionOf?.get(cluster) ?? ''}` : group;
  };
  const bucketOf = (incident: Incident, group: IncidentGroup, merged = false) => {
    const key = merged ? `merged:${incident.id}` : group.id;
    const bucket = buckets.get(key) ?? {
      group,
      rule: incident.rule,
      severity: incident.severity,
      members: [],
      merged,
      clusters: new Set<string>(),
      keys: new Set<string>(),
    };
    bucket.members.push(incident);
    bucket.clusters.add(incident.cluster);
    bucket.keys.add(keyOf(incident.cluster, incident.rule));
    buckets.set(key, bucket);
  };
  const pending: Incident[] = [];
  for (const incident of input.incidents) {
    // An incident merged into its cause leaves its fleet incident; what is left of that one carries on.
    if (incident.status === 'resolved') bucketOf(incident, groupOf(incident), true);
    else if (input.regroup.has(incident.id)) pending.push(incident);
    else bucketOf(incident, groupOf(incident));
  }
  // A fleet incident takes in a cluster while it is young; one grouped per Region also while two or more of its
  // clusters still fire: several clusters of a Region dark at once are its CloudWatch, and one that goes dark an hour
  // into that is likelier the same impairment spreading than a second outage, which a page of its own, titled after
  // that cluster alone, would send on-call to look for. A single cluster dark for hours takes in no one after
  // `joinWithin`, so that a cluster left dark (deleted, never removed from the configuration) hides no later one.
  const takesIn = (b: Bucket, rule: string) =>
    input.at - Date.parse(b.group.openedAt) <= input.settings.joinWithinMs ||
    (input.perRegion?.(rule) === true && b.members.filter((m) => m.recoveredAt === undefined).length >= 2);
  for (const incident of pending) {
    const young = [...buckets.values()]
      .filter(
        (b) =>
          !b.merged &&
          b.rule === incident.rule &&
          b.severity === incident.severity &&
          takesIn(b, incident.rule) &&
          !b.clusters.has(incident.cluster) &&
          b.keys.size === 1 &&
          b.keys.has(keyOf(incident.cluster, incident.rule)),
      )
      .sort((a, b) => a.group.openedAt.localeCompare(b.group.openedAt) || a.group.id.localeCompare(b.group.id));
    // A fleet incident is named after the incident that opens it, at the step it opens: a re-rooted or escalated
    // incident opens a new one rather than take the name of the one it leaves.
    const group = young[0]?.group ?? { id: incidentId(incident.cluster, incident.rule, at), openedAt: at };
    const grouped = { ...incident, group };
    placed.set(incident.id, grouped);
    bucketOf(grouped, group);
  }
  // In the order of their first incident, as the store listed them, so that notifications come out in a stable order.
  const position = new Map(input.incidents.map((incident, index) => [incident.id, index]));
  const first = (bucket: Bucket) => Math.min(...bucket.members.map((m) => position.get(m.id) ?? 0));
  const ordered = [...buckets.values()].sort((a, b) => first(a) - first(b));
  const groups = ordered.map((bucket): FleetGroup => {
    const closing = !bucket.merged && bucket.members.every((m) => m.recoveredAt !== undefined);
    const members = closing
      ? bucket.members.map((m): Incident => ({ ...m, status: 'resolved', resolvedAt: at }))
      : bucket.members;
    for (const member of members) placed.set(member.id, member);
    return {
      id: bucket.group.id,
      openedAt: bucket.group.openedAt,
      rule: bucket.rule,
      severity: bucket.severity,
      members,
      resolved: closing || bucket.merged,
    };
  });
  return { incidents: input.incidents.map((i) => placed.get(i.id) ?? i), groups };
}
