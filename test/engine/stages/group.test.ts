import type { Incident } from '../../../shared/engine/incident.ts';
import { groupIncidents } from '../../../shared/engine/stages/group.ts';
import { minuteIso, minuteMs, openIncident } from '../../support/engine-fixtures.ts';

const HOUR = 3_600_000;

/** Group at `minute` with a one-hour join window; `placed` lists the incidents new to their fleet incident. */
const group = (minute: number, incidents: readonly Incident[], placed: readonly Incident[] = []) =>
  groupIncidents({
    at: minuteMs(minute),
    incidents,
    regroup: new Set(placed.map((i) => i.id)),
    settings: { joinWithinMs: HOUR },
  });

/** An incident already in the fleet incident that `leader` opened. */
const memberOf = (leader: Incident, incident: Incident): Incident => ({
  ...incident,
  group: { id: leader.id, openedAt: leader.openedAt },
});

describe('the group stage', () => {
  const first = openIncident('dev-a', 'blackhole', 0);
  const leader = memberOf(first, first);

  it('opens a fleet incident for an incident that no young fleet incident of its rule takes in', () => {
    const fresh = openIncident('dev-a', 'blackhole', 0);
    const out = group(0, [fresh], [fresh]);

    expect(out.groups.map((g) => [g.id, g.openedAt, g.members.map((m) => m.cluster)])).toEqual([
      [fresh.id, minuteIso(0), ['dev-a']],
    ]);
  });

  it('keeps a cluster of another group out of a young fleet incident of its rule', () => {
    const joiner = openIncident('prod-a', 'blackhole', 6);
    const out = groupIncidents({
      at: minuteMs(6),
      incidents: [leader, joiner],
      regroup: new Set([joiner.id]),
      settings: { joinWithinMs: HOUR, groupOf: new Map([['prod-a', '["prod"]']]) },
    });

    expect(out.groups.map((g) => [g.id, g.members.map((m) => m.cluster)])).toEqual([
      [leader.id, ['dev-a']],
      [joiner.id, ['prod-a']],
    ]);
  });

  it('takes a cluster that starts firing the same rule into the young fleet incident', () => {
    const joiner = openIncident('dev-b', 'blackhole', 6);
    const out = group(6, [leader, joiner], [joiner]);

    expect([out.groups.map((g) => g.members.map((m) => m.cluster)), out.incidents[1]?.group]).toEqual([
      [['dev-a', 'dev-b']],
      { id: leader.id, openedAt: minuteIso(0) },
    ]);
  });

  it('takes in clusters whose incidents the store holds, whether they were read at this step or not', () => {
    const joiner = openIncident('dev-c', 'blackhole', 20);
    const quiet = memberOf(leader, openIncident('dev-b', 'blackhole', 6));
    const out = group(20, [leader, quiet, joiner], [joiner]);

    expect(out.groups.map((g) => g.members.map((m) => m.cluster))).toEqual([['dev-a', 'dev-b', 'dev-c']]);
  });

  it('never takes an incident of another root cause into a fleet incident', () => {
    const other = openIncident('dev-b', 'overload', 4);
    const out = group(4, [leader, other], [other]);

    expect(out.groups.map((g) => [g.rule, g.members.map((m) => m.cluster)])).toEqual([
      ['blackhole', ['dev-a']],
      ['overload', ['dev-b']],
    ]);
  });

  it('never takes a ticket into the fleet incident of a page', () => {
    const ticket = openIncident('dev-b', 'blackhole', 4, { severity: 'ticket' });
    const out = group(4, [leader, ticket], [ticket]);

    expect(out.groups.map((g) => [g.severity, g.members.length])).toEqual([
      ['page', 1],
      ['ticket', 1],
    ]);
  });

  it('opens a fleet incident of its own for a cluster that starts firing once the join window has passed', () => {
    const late = openIncident('dev-b', 'blackhole', 61);
    const out = group(61, [leader, late], [late]);

    expect(out.groups.map((g) => g.members.map((m) => m.cluster))).toEqual([['dev-a'], ['dev-b']]);
  });

  describe('a rule grouped per Region', () => {
    /** Group at `minute` with a one-hour join window, `dark` grouped per Region, every cluster in eu-north-1. */
    const groupPerRegion = (minute: number, incidents: readonly Incident[], placed: readonly Incident[]) =>
      groupIncidents({
        at: minuteMs(minute),
        incidents,
        regroup: new Set(placed.map((i) => i.id)),
        settings: {
          joinWithinMs: HOUR,
          regionOf: new Map(['dev-a', 'dev-b', 'dev-c'].map((cluster) => [cluster, 'eu-north-1'])),
        },
        perRegion: (rule) => rule === 'dark',
      });
    const darkLeader = memberOf(openIncident('dev-a', 'dark', 0), openIncident('dev-a', 'dark', 0));

    it('takes a cluster of the Region in after the join window while two of its clusters still fire', () => {
      const second = memberOf(darkLeader, openIncident('dev-b', 'dark', 5));
      const late = openIncident('dev-c', 'dark', 90);
      const out = groupPerRegion(90, [darkLeader, second, late], [late]);

      expect(out.groups.map((g) => [g.id, g.members.map((m) => m.cluster)])).toEqual([
        [darkLeader.id, ['dev-a', 'dev-b', 'dev-c']],
      ]);
    });

    it('opens a fleet incident of its own after the join window when one cluster alone still fires', () => {
      const recovered = memberOf(darkLeader, { ...openIncident('dev-b', 'dark', 5), recoveredAt: minuteIso(60) });
      const late = openIncident('dev-c', 'dark', 90);
      const out = groupPerRegion(90, [darkLeader, recovered, late], [late]);

      expect(out.groups.map((g) => g.members.map((m) => m.cluster))).toEqual([['dev-a', 'dev-b'], ['dev-c']]);
    });
  });

  it('names a fleet incident that a re-rooted incident opens after the step it opens', () => {
    const rerooted = openIncident('dev-a', 'cause', 0, { group: { id: 'dev-a/symptom/x', openedAt: minuteIso(0) } });
    const out = group(9, [rerooted], [rerooted]);

    expect(out.groups.map((g) => g.id)).toEqual([`dev-a/cause/${minuteIso(9)}`]);
  });

  it('keeps a fleet incident open while one of its clusters still fires', () => {
    const recovered = { ...leader, recoveredAt: minuteIso(30) };
    const firing = memberOf(leader, openIncident('dev-b', 'blackhole', 6));
    const out = group(30, [recovered, firing]);

    expect([out.groups.map((g) => g.resolved), out.incidents.map((i) => i.status)]).toEqual([
      [false],
      ['open', 'open'],
    ]);
  });

  it('resolves every cluster of a fleet incident together once the last has recovered', () => {
    const first = { ...leader, recoveredAt: minuteIso(30) };
    const last = memberOf(leader, openIncident('dev-b', 'blackhole', 6, { recoveredAt: minuteIso(34) }));
    const out = group(34, [first, last]);

    expect([out.groups.map((g) => g.resolved), out.incidents.map((i) => [i.status, i.resolvedAt])]).toEqual([
      [true],
      [
        ['resolved', minuteIso(34)],
        ['resolved', minuteIso(34)],
      ],
    ]);
  });

  it('closes an incident merged into its cause on its own, leaving its fleet incident to the others', () => {
    const merged = memberOf(leader, openIncident('dev-b', 'blackhole', 6, { status: 'resolved', mergedInto: 'x' }));
    const out = group(10, [leader, merged]);

    expect(out.groups.map((g) => [g.resolved, g.members.map((m) => m.cluster)])).toEqual([
      [false, ['dev-a']],
      [true, ['dev-b']],
    ]);
  });

  it('treats an incident stored before fleet incidents as a fleet incident of its own', () => {
    const stored = openIncident('dev-a', 'blackhole', 0);
    const out = group(5, [stored]);

    expect([out.groups.map((g) => [g.id, g.openedAt]), out.incidents[0]]).toEqual([
      [[stored.id, minuteIso(0)]],
      stored,
    ]);
  });

  it('lists fleet incidents in the order the store lists their first incident', () => {
    const rerooted = openIncident('dev-a', 'cause', 0);
    const merged = openIncident('dev-a', 'second', 2, { status: 'resolved', mergedInto: rerooted.id });
    const out = group(9, [rerooted, merged], [rerooted]);

    expect(out.groups.map((g) => g.rule)).toEqual(['cause', 'second']);
  });
});
