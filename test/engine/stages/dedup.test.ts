import type { Incident } from '../../../shared/engine/incident.ts';
import type { Change } from '../../../shared/engine/stages/correlate.ts';
import { type Decision, needsUpdate } from '../../../shared/engine/stages/dedup.ts';
import type { FleetGroup } from '../../../shared/engine/stages/group.ts';
import type { MuteVerdict } from '../../../shared/engine/stages/mute.ts';
import { minuteIso, minuteMs, openIncident, pagedAt } from '../../support/engine-fixtures.ts';

const MINUTE = 60_000;

/** A fleet incident of `members` that opened with the first of them. */
const fleet = (members: readonly Incident[], resolved = false): FleetGroup => {
  const first = members[0] as Incident;
  return { id: first.id, openedAt: first.openedAt, rule: first.rule, severity: first.severity, members, resolved };
};

/** What the dedup stage decides at `minute`, with no wait, a 5 minute interval and a 4 hour reminder. */
const decide = (
  minute: number,
  group: FleetGroup,
  fields: { verdicts?: Record<string, MuteVerdict>; changes?: Record<string, Change>; waitMinutes?: number } = {},
) =>
  needsUpdate({
    at: minuteMs(minute),
    group,
    verdicts: new Map(Object.entries(fields.verdicts ?? {})),
    changes: new Map(Object.entries(fields.changes ?? {})),
    settings: { waitMs: (fields.waitMinutes ?? 0) * MINUTE, intervalMs: 5 * MINUTE, renotifyMs: 240 * MINUTE },
  });

/** A decision as a line: what goes out, about which clusters, saying what; or why nothing does. */
const said = (decision: Decision) =>
  decision.send
    ? [decision.kind, decision.reason, decision.about.map((i) => i.cluster), decision.changes]
    : ['hold', decision.why];

const a = openIncident('dev-a', 'blackhole', 0);
const b = openIncident('dev-b', 'blackhole', 2);
const c = openIncident('dev-c', 'blackhole', 3);

describe('the dedup stage (needsUpdate)', () => {
  it('pages a fleet incident that on-call has never been shown', () => {
    expect(said(decide(0, fleet([a])))).toEqual(['page', 'opened', ['dev-a'], []]);
  });

  it('files a ticket for a fleet incident of tickets', () => {
    const ticket = openIncident('dev-a', 'tax', 0, { severity: 'ticket' });

    expect(said(decide(0, fleet([ticket])))[0]).toBe('ticket');
  });

  it('waits group_wait after the fleet incident opened before its first page, to take in more clusters', () => {
    expect([
      said(decide(1, fleet([a]), { waitMinutes: 2 })),
      said(decide(2, fleet([a, b]), { waitMinutes: 2 })),
    ]).toEqual([
      ['hold', 'group-wait'],
      ['page', 'opened', ['dev-a', 'dev-b'], []],
    ]);
  });

  it('holds back clusters that joined until group_interval after the last notification', () => {
    expect(said(decide(4, fleet([pagedAt(a, 0), b, c])))).toEqual(['hold', 'group-interval']);
  });

  it('announces every cluster that joined in one update, listing the whole fleet incident', () => {
    expect(said(decide(5, fleet([pagedAt(a, 0), b, c])))).toEqual([
      'update',
      'joined',
      ['dev-a', 'dev-b', 'dev-c'],
      ['joined: dev-b, dev-c'],
    ]);
  });

  it('sends a new symptom at once, naming its cluster, with the clusters that joined riding along', () => {
    const changes = { [a.id]: { reason: 'new-symptom' as const, texts: ['new symptom: storm'] } };

    expect(said(decide(2, fleet([pagedAt(a, 0), b]), { changes }))).toEqual([
      'update',
      'new-symptom',
      ['dev-a', 'dev-b'],
      ['new symptom: storm (dev-a)', 'joined: dev-b'],
    ]);
  });

  it('escalates a fleet incident of tickets when one of its incidents becomes a page', () => {
    const escalated = { ...pagedAt(a, 0), severity: 'page' as const, paged: false };

    expect(said(decide(6, fleet([escalated])))).toEqual(['page', 'escalated', ['dev-a'], []]);
  });

  it('reminds on-call of an open page after renotify without news', () => {
    expect([said(decide(239, fleet([pagedAt(a, 0)]))), said(decide(240, fleet([pagedAt(a, 0)])))]).toEqual([
      ['hold', 'nothing-new'],
      ['update', 'reminder', ['dev-a'], []],
    ]);
  });

  it('mentions clusters that recovered while others still fire in the next update', () => {
    const recovered = { ...pagedAt(a, 0), recoveredAt: minuteIso(30) };

    expect(said(decide(245, fleet([recovered, pagedAt(b, 5)])))).toEqual([
      'update',
      'reminder',
      ['dev-b'],
      [`recovered: dev-a at ${minuteIso(30).slice(11, 16)}Z`],
    ]);
  });

  it('resolves a closed fleet incident once, naming every cluster on-call was shown and when it recovered', () => {
    const closed = [
      { ...pagedAt(a, 0), status: 'resolved' as const, recoveredAt: minuteIso(40), resolvedAt: minuteIso(44) },
      { ...pagedAt(b, 5), status: 'resolved' as const, recoveredAt: minuteIso(44), resolvedAt: minuteIso(44) },
    ];

    expect(said(decide(44, fleet(closed, true)))).toEqual([
      'resolve',
      'resolved',
      ['dev-a', 'dev-b'],
      [`recovered: dev-a at ${minuteIso(40).slice(11, 16)}Z, dev-b at ${minuteIso(44).slice(11, 16)}Z`],
    ]);
  });

  it('says nothing when a fleet incident that on-call was never shown closes', () => {
    const closed = { ...a, status: 'resolved' as const, resolvedAt: minuteIso(20) };

    expect(said(decide(20, fleet([closed], true)))).toEqual(['hold', 'never-shown']);
  });

  it('holds back a fleet incident whose firing clusters are all muted', () => {
    const verdicts = {
      [a.id]: { shown: false as const, mute: { reason: 'upgrade', author: 'x', until: minuteIso(60) } },
    };

    expect(said(decide(0, fleet([a]), { verdicts }))).toEqual(['hold', 'muted']);
  });

  it('says why a mute let the first page through', () => {
    const mute = { reason: 'upgrade', author: 'platform team', until: minuteIso(60) };
    const held = { ...a, mutedBy: mute };
    const verdicts = { [a.id]: { shown: true as const, released: { mute, why: 'blackhole is severe' } } };

    expect(said(decide(12, fleet([held]), { verdicts }))).toEqual([
      'page',
      'maintenance-override',
      ['dev-a'],
      [
        `dev-a: paging despite maintenance "upgrade" (platform team, until ${minuteIso(60).slice(11, 16)}Z): blackhole is severe`,
      ],
    ]);
  });

  it('closes an incident merged into its cause with what it was merged into', () => {
    const merged = { ...pagedAt(a, 0), status: 'resolved' as const, mergedInto: 'x', resolvedAt: minuteIso(9) };
    const changes = { [a.id]: { reason: 'merged' as const, texts: ['merged into x, caused by cause'] } };

    expect(said(decide(9, fleet([merged], true), { changes }))).toEqual([
      'resolve',
      'merged',
      ['dev-a'],
      ['merged into x, caused by cause'],
    ]);
  });
});
