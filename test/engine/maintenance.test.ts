import { activeMutes, clusterMuted, type Mute, policyRelease, windowMute } from '../../shared/engine/maintenance.ts';

const WINDOW: Mute = { cluster: 'dev-a', from: 100, to: 200, reason: 'upgrade', author: 'platform team' };
const QUIET = { firing: new Set<string>(), severe: new Map<string, string>(), firingForMs: 0 };

describe('maintenance', () => {
  describe('activeMutes', () => {
    it('finds a mute from its start up to, not including, its expiry', () => {
      expect([99, 100, 199, 200].map((at) => activeMutes([WINDOW], 'dev-a', 'any', at).length)).toEqual([0, 1, 1, 0]);
    });

    it('finds a mute without a cluster on every cluster', () => {
      const fleetWide: Mute = { from: 0, to: 10, reason: 'freeze', author: 'ops' };

      expect(activeMutes([fleetWide], 'dev-z', 'any', 5)).toEqual([fleetWide]);
    });

    it('finds a mute that names a rule only for incidents rooted in that rule', () => {
      const silence: Mute = { ...WINDOW, rule: 'node-churn' };

      expect([
        activeMutes([silence], 'dev-a', 'node-churn', 150),
        activeMutes([silence], 'dev-a', 'other', 150),
      ]).toEqual([[silence], []]);
    });

    it('says a cluster is muted when a mute of one of its rules is active', () => {
      expect(clusterMuted([{ ...WINDOW, rule: 'node-churn' }], 'dev-a', 150)).toBe(true);
    });
  });

  describe('windowMute', () => {
    it('makes a window the file declares its author, when it names none', () => {
      expect(windowMute({ cluster: 'dev-a', from: 1, to: 2, reason: 'upgrade' }, 'config/sentinel.json')).toEqual({
        cluster: 'dev-a',
        from: 1,
        to: 2,
        reason: 'upgrade',
        author: 'config/sentinel.json',
      });
    });

    it('keeps the author a window names', () => {
      expect(windowMute({ from: 1, to: 2, reason: 'upgrade', author: 'alice' }, 'file').author).toBe('alice');
    });
  });

  describe('policyRelease', () => {
    it('never releases a muted rule', () => {
      expect(policyRelease('blip', 'mute', { ...QUIET, firingForMs: 86_400_000 })).toBeUndefined();
    });

    it('always releases a rule that is never muted', () => {
      expect(policyRelease('dark', 'notify', QUIET)).toBe('dark is never muted');
    });

    it('releases a rule while one of the rules it names fires', () => {
      const policy = { notifyWhenFiring: ['degraded', 'blackhole'] };

      expect(policyRelease('storm', policy, { ...QUIET, firing: new Set(['blackhole']) })).toBe(
        'blackhole fires on the same cluster',
      );
    });

    it('releases a rule once it has fired for its grace period', () => {
      expect([
        policyRelease('degraded', { notifyAfter: '30m' }, { ...QUIET, firingForMs: 29 * 60_000 }),
        policyRelease('degraded', { notifyAfter: '30m' }, { ...QUIET, firingForMs: 30 * 60_000 }),
      ]).toEqual([undefined, 'degraded has fired for 30 min, longer than maintenance explains (30m)']);
    });

    it('releases a rule while its severe condition holds, saying what it saw', () => {
      const policy = {
        notifyWhen: { kind: 'threshold' as const, of: 'apiserver.5xx' as const, op: '>=' as const, value: 1 },
      };

      expect(policyRelease('degraded', policy, { ...QUIET, severe: new Map([['degraded', '5xx = 9 >= 1']]) })).toBe(
        'degraded is severe: 5xx = 9 >= 1',
      );
    });
  });
});
