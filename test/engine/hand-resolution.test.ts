import { describe, expect, it } from '@jest/globals';
import { type HandResolution, markResolvedByHand, splitResolvedByHand } from '../../shared/engine/hand-resolution.ts';
import { type Incident, newIncident } from '../../shared/engine/incident.ts';
import type { FleetGroup } from '../../shared/engine/stages/group.ts';

const OPENED = '2026-11-25T10:00:00Z';
const group = { id: `dev-a/webhook-blackhole/${OPENED}`, openedAt: OPENED };
const member = (cluster: string, openedAt = OPENED, extra: Partial<Incident> = {}): Incident => ({
  ...newIncident(cluster, 'webhook-blackhole', 'page', openedAt),
  group,
  ...extra,
});
const resolution: HandResolution = {
  group: group.id,
  incidents: [member('dev-a').id, member('dev-b').id],
  at: '2026-11-25T10:20:00Z',
  author: 'arn:aws:sts::111122223333:assumed-role/Ops/alice',
  reason: 'webhook rolled back',
};
const fleet = (members: readonly Incident[]): FleetGroup => ({
  id: group.id,
  openedAt: OPENED,
  rule: 'webhook-blackhole',
  severity: 'page',
  members,
  resolved: false,
});

describe('hand resolution', () => {
  it('marks the open incidents it covers once, and leaves a resolved or already marked one as it is', () => {
    const earlier = { at: '2026-11-25T10:10:00Z', author: 'bob', reason: 'first' };
    const incidents = new Map(
      [member('dev-a'), member('dev-b', OPENED, { resolvedBy: earlier }), member('dev-c')].map((i) => [i.id, i]),
    );

    const marked = markResolvedByHand(incidents, [resolution]);

    expect(marked.map((i) => [i.cluster, i.resolvedBy?.author])).toEqual([['dev-a', resolution.author]]);
  });

  it('keeps a fleet incident resolved by hand quiet', () => {
    const split = splitResolvedByHand(fleet([member('dev-a', OPENED, { resolvedBy: resolution })]));

    expect([split.quiet.length, split.rest]).toEqual([1, undefined]);
  });

  it('makes a cluster that joined after the resolve a fleet incident of its own, so that it pages', () => {
    const joined = member('dev-c', '2026-11-25T10:25:00Z');
    const split = splitResolvedByHand(fleet([member('dev-a', OPENED, { resolvedBy: resolution }), joined]));

    expect(split.rest).toEqual({
      ...fleet([]),
      id: joined.id,
      openedAt: joined.openedAt,
      members: [{ ...joined, group: { id: joined.id, openedAt: joined.openedAt } }],
    });
  });

  it('leaves a fleet incident nobody resolved by hand as it is', () => {
    const whole = fleet([member('dev-a'), member('dev-b')]);

    expect(splitResolvedByHand(whole)).toEqual({ quiet: [], rest: whole });
  });
});
