import type { HandResolutionRecord, Incident } from './incident.ts';
import type { FleetGroup } from './stages/group.ts';

/**
 * A fleet incident an operator resolved by hand (`sentinel incidents resolve`): which of its incidents the resolve
 * covered (those open when it was given), who gave it, when and why. The command sends the resolve through the outbox
 * and keeps this record; every poll reads the records and the step marks the incidents they cover.
 */
export interface HandResolution extends HandResolutionRecord {
  /** The fleet incident's id, which paging tools key their incident on. */
  readonly group: string;
  readonly incidents: readonly string[];
}

/** The incidents a hand resolution covers, marked (an incident already marked keeps its first mark). */
export function markResolvedByHand(
  incidents: ReadonlyMap<string, Incident>,
  resolutions: readonly HandResolution[],
): Incident[] {
  return resolutions.flatMap(({ group: _group, incidents: ids, ...record }) =>
    ids.flatMap((id) => {
      const incident = incidents.get(id);
      return incident && incident.status === 'open' && incident.resolvedBy === undefined
        ? [{ ...incident, resolvedBy: record }]
        : [];
    }),
  );
}

/**
 * A fleet incident after a hand resolution: its members resolved by hand are quiet (on-call was sent their resolve,
 * and a paging tool keeps that incident closed), and any other member, a cluster that joined after the resolve, is a
 * fleet incident of its own, named after it, so that it pages rather than update a closed incident.
 */
export function splitResolvedByHand(group: FleetGroup): { quiet: readonly Incident[]; rest?: FleetGroup } {
  const quiet = group.members.filter((m) => m.resolvedBy !== undefined);
  if (quiet.length === 0) return { quiet, rest: group };
  const others = group.members.filter((m) => m.resolvedBy === undefined);
  const [first] = [...others].sort((a, b) => a.openedAt.localeCompare(b.openedAt) || a.id.localeCompare(b.id));
  if (!first) return { quiet };
  const own = { id: first.id, openedAt: first.openedAt };
  return {
    quiet,
    rest: {
      ...group,
      id: own.id,
      openedAt: own.openedAt,
      members: others.map((m) => ({ ...m, group: own })),
      resolved: others.every((m) => m.status === 'resolved'),
    },
  };
}
