import type { Incident } from '../../../shared/engine/incident.ts';
import type { Mute } from '../../../shared/engine/maintenance.ts';
import type { MaintenancePolicy } from '../../../shared/engine/rule.ts';
import type { ClusterReading } from '../../../shared/engine/stages/evaluate.ts';
import { type MuteInput, muteStage } from '../../../shared/engine/stages/mute.ts';
import { minuteIso, minuteMs, openIncident, pagedAt } from '../../support/engine-fixtures.ts';

const POLICIES: Record<string, MaintenancePolicy> = {
  blip: 'mute',
  outage: 'notify',
  storm: { notifyWhenFiring: ['degraded'] },
  degraded: { notifyAfter: '30m', notifyWhen: { kind: 'threshold', of: 'apiserver.5xx', op: '>=', value: 1 } },
};

/** The upgrade window on dev-a from minute 0 to minute 60, declared by the platform team. */
const UPGRADE: Mute = {
  cluster: 'dev-a',
  from: minuteMs(0),
  to: minuteMs(60),
  reason: 'upgrade',
  author: 'platform team',
};
const HELD = { reason: 'upgrade', author: 'platform team', until: minuteIso(60) };

/** What was read on a cluster at this step: the rules that fire and those whose maintenance condition holds. */
const reading = (cluster: string, firing: readonly string[], severe: Record<string, string> = {}): ClusterReading => ({
  cluster,
  findings: [],
  firing: new Set(firing),
  severe: new Map(Object.entries(severe)),
});

/** Run the mute stage at `minute` over a fleet incident of `members`; dev-a is read, firing `firing`. */
const mute = (
  minute: number,
  members: readonly Incident[],
  fields: Partial<MuteInput> & { firing?: string[] } = {},
) => {
  const { firing, ...rest } = fields;
  const [first] = members;
  return muteStage({
    at: minuteMs(minute),
    mutes: [UPGRADE],
    group: {
      id: first?.id ?? '',
      openedAt: first?.openedAt ?? '',
      rule: first?.rule ?? '',
      severity: 'page',
      members,
      resolved: false,
    },
    policyOf: (rule) => POLICIES[rule],
    readings: new Map([['dev-a', reading('dev-a', firing ?? members.map((m) => m.rule))]]),
    ...rest,
  });
};

describe('the mute stage', () => {
  it('shows a member that no mute covers', () => {
    const incident = openIncident('dev-a', 'blip', 70);

    expect(mute(70, [incident]).verdicts.get(incident.id)).toEqual({ shown: true });
  });

  it('holds back a member that a window covers, and records the window on it', () => {
    const incident = openIncident('dev-a', 'blip', 5);
    const out = mute(5, [incident]);

    expect([out.verdicts.get(incident.id), out.group.members[0]?.mutedBy]).toEqual([
      { shown: false, mute: HELD },
      HELD,
    ]);
  });

  it('holds back only the clusters the window covers', () => {
    const other = openIncident('dev-b', 'blip', 5);
    const out = mute(5, [other], { readings: new Map([['dev-b', reading('dev-b', ['blip'])]]) });

    expect(out.verdicts.get(other.id)).toEqual({ shown: true });
  });

  it('never holds back a rule that is never muted, and names the mute it goes through', () => {
    const incident = openIncident('dev-a', 'outage', 5);

    expect(mute(5, [incident]).verdicts.get(incident.id)).toEqual({
      shown: true,
      released: { mute: HELD, why: 'outage is never muted' },
    });
  });

  it('holds back even a rule that is never muted under a silence that includes pages', () => {
    const incident = openIncident('dev-a', 'outage', 5);
    const teardown: Mute = { ...UPGRADE, id: 's1', reason: 'teardown', includePages: true };

    expect(mute(5, [incident], { mutes: [UPGRADE, teardown] }).verdicts.get(incident.id)).toEqual({
      shown: false,
      mute: { silence: 's1', reason: 'teardown', author: 'platform team', until: minuteIso(60) },
    });
  });

  it("covers a cluster by its labels: a staging silence holds staging's ticket and not prod's", () => {
    const staging = openIncident('dev-a', 'blip', 5);
    const prod = openIncident('prod-a', 'blip', 5);
    const bylabel: Mute = {
      id: 's2',
      matchers: [{ name: 'environment', op: '=', value: 'staging' }],
      from: minuteMs(0),
      to: minuteMs(60),
      reason: 'staging load test',
      author: 'alice',
    };
    const verdicts = mute(5, [staging, prod], {
      mutes: [bylabel],
      labels: new Map([
        ['dev-a', { cluster: 'dev-a', environment: 'staging' }],
        ['prod-a', { cluster: 'prod-a', environment: 'prod' }],
      ]),
    }).verdicts;

    expect([verdicts.get(staging.id)?.shown, verdicts.get(prod.id)?.shown]).toEqual([false, true]);
  });

  it('lets a member through while a rule its policy names fires on the same cluster', () => {
    const incident = openIncident('dev-a', 'storm', 5);

    expect(mute(5, [incident], { firing: ['storm', 'degraded'] }).verdicts.get(incident.id)).toEqual({
      shown: true,
      released: { mute: HELD, why: 'degraded fires on the same cluster' },
    });
  });

  it('holds a member back while the rule its policy names does not fire', () => {
    const incident = openIncident('dev-a', 'storm', 5);

    expect(mute(5, [incident]).verdicts.get(incident.id)?.shown).toBe(false);
  });

  it('lets a member through while its policy sees a severe outage', () => {
    const incident = openIncident('dev-a', 'degraded', 5);
    const readings = new Map([['dev-a', reading('dev-a', ['degraded'], { degraded: '5xx = 500 >= 1' })]]);

    expect(mute(8, [incident], { readings }).verdicts.get(incident.id)).toEqual({
      shown: true,
      released: { mute: HELD, why: 'degraded is severe: 5xx = 500 >= 1' },
    });
  });

  it('lets a member through once it has fired without a clear for longer than its policy allows', () => {
    const incident = openIncident('dev-a', 'degraded', 5);

    expect(mute(35, [incident]).verdicts.get(incident.id)).toEqual({
      shown: true,
      released: { mute: HELD, why: 'degraded has fired for 30 min, longer than maintenance explains (30m)' },
    });
  });

  it('counts the firing time from the last time the member fired again, not from when it opened', () => {
    const incident = openIncident('dev-a', 'degraded', 5, { firingSince: minuteIso(20), flaps: 1 });

    expect(mute(35, [incident]).verdicts.get(incident.id)?.shown).toBe(false);
  });

  it('shows a held member when its window ends, if it still fires', () => {
    const incident = openIncident('dev-a', 'blip', 5, { mutedBy: HELD });

    expect(mute(60, [incident]).verdicts.get(incident.id)).toEqual({ shown: true, ended: HELD });
  });

  it('keeps holding a member whose window ended while it had stopped firing', () => {
    const incident = openIncident('dev-a', 'blip', 5, { mutedBy: HELD, clearSince: minuteIso(50) });

    expect(mute(60, [incident], { firing: [] }).verdicts.get(incident.id)).toEqual({ shown: false, mute: HELD });
  });

  it('lets nothing through on a cluster it has no fresh reading of', () => {
    const incident = openIncident('dev-a', 'degraded', 5);

    expect(mute(40, [incident], { readings: new Map() }).verdicts.get(incident.id)?.shown).toBe(false);
  });

  it('treats a silence on one rule, with its author and expiry, like a window, and records which silence holds', () => {
    const silence: Mute = {
      id: 'a1b2c3d4',
      cluster: 'dev-a',
      rule: 'blip',
      from: 0,
      to: minuteMs(120),
      reason: 'known',
      author: 'alice',
    };
    const blip = openIncident('dev-a', 'blip', 70);
    const storm = openIncident('dev-a', 'storm', 70);
    const out = mute(70, [blip, storm], { mutes: [silence], firing: ['blip', 'storm'] });

    expect([out.verdicts.get(blip.id), out.verdicts.get(storm.id)]).toEqual([
      { shown: false, mute: { silence: 'a1b2c3d4', reason: 'known', author: 'alice', until: minuteIso(120) } },
      { shown: true },
    ]);
  });

  it('leaves alone a member on-call has already been shown', () => {
    const incident = pagedAt(openIncident('dev-a', 'blip', 5), 5);
    const out = mute(10, [incident]);

    expect([out.verdicts.has(incident.id), out.group.members[0]]).toEqual([false, incident]);
  });
});
