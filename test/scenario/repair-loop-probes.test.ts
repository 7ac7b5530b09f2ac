import { replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { defaultRuleSet } from '../support/engine-fixtures.ts';
import { PROBE_ONSET, type ProbeShape, repairLoopProbe } from '../support/repair-loop-probe.ts';

const START = Date.parse('2026-03-11T06:00:00Z');
// Each shape is replayed with ten seeds of noise, gaps and Poisson counts: a loop's first minutes are a few repairs,
// and chance alone sometimes delays them past 3 minutes.
const SEEDS = Array.from({ length: 10 }, (_, i) => i + 1);

// A node upgrade's window over the whole probe: the cluster's nodes are being replaced on purpose.
const UPGRADE_WINDOW = [{ cluster: 'probe', from: '+0m', to: '+240m', reason: 'node group upgrade' }];

/** The probe's pages, as [rule, minutes after the onset of its repairs]; inside a maintenance window when `window`. */
async function pagesOf(shape: ProbeShape, window = false): Promise<[string, number][]> {
  const json = { ...repairLoopProbe(shape), ...(window && { maintenance: UPGRADE_WINDOW }) };
  const scenario = parseScenario(json, `${shape.kind}-${shape.nodes}.json`);
  const { notifications } = await replayScenario(scenario, { ruleSet: defaultRuleSet() });
  return notifications
    .filter((n) => n.kind === 'page')
    .map((n) => [n.rule, (Date.parse(n.at) - START) / 60_000 - PROBE_ONSET]);
}

// Sizes, paces and timings the shipped scenarios do not have: a 40-node cluster whose loop repairs a node a minute
// with a sixth of it NotReady, an 800-node cluster at two a minute with a twelfth; repairs starting 5 minutes after
// the nodes went NotReady (a repair delay overridden down) or 20; on a healthy control plane (a node-side fault: the
// replacements boot the same broken network) or a struggling one.
const LOOPS: readonly Omit<ProbeShape, 'seed'>[] = [
  { kind: 'loop', nodes: 40, routine: 0.02, pace: 1, notReadyShare: 0.15, delay: 5, lasts: 60 },
  { kind: 'loop', nodes: 40, routine: 0.02, pace: 1, notReadyShare: 0.15, delay: 20, struggling: true },
  { kind: 'loop', nodes: 800, routine: 0.3, pace: 2, notReadyShare: 0.08, delay: 5, lasts: 60 },
  { kind: 'loop', nodes: 800, routine: 0.3, pace: 2, notReadyShare: 0.08, delay: 20, ramp: 6, struggling: true },
];

// The twins, on healthy control planes: a planned rotation at two nodes a minute with its joiners NotReady, a
// scale-down, and a zone of three cut off (a third NotReady, above the brake) beside the routine churn.
const TWINS: readonly Omit<ProbeShape, 'seed'>[] = [
  { kind: 'rotation', nodes: 40, routine: 0.02, pace: 2, joiners: 3, lasts: 20 },
  { kind: 'rotation', nodes: 800, routine: 0.3, pace: 2, joiners: 4, lasts: 80 },
  { kind: 'scale-down', nodes: 800, routine: 0.3, pace: 2.5, lasts: 40 },
  { kind: 'zone-cut', nodes: 40, routine: 0.02, pace: 0, notReadyShare: 0.33, delay: 0 },
  { kind: 'zone-cut', nodes: 800, routine: 0.3, pace: 0, notReadyShare: 0.33, delay: 0 },
];

// Auto-repair that works, on healthy control planes: nodes die, and 30 minutes later (EKS's default repair delay) they
// are replaced at the capped pace by replacements that join Ready, so the NotReady count falls as the repairs land.
const HEALS: readonly Omit<ProbeShape, 'seed'>[] = [
  { kind: 'heal', nodes: 40, routine: 0.02, pace: 1, notReadyShare: 0.1, delay: 30 },
  { kind: 'heal', nodes: 800, routine: 0.3, pace: 2, notReadyShare: 0.075, delay: 30 },
  { kind: 'heal', nodes: 2000, routine: 0.3, pace: 2, notReadyShare: 0.06, delay: 30 },
];
// Three of twenty: a routine repair in the minutes before the first, and a node or two NotReady for a minute, can
// leave the heal's first repair looking like a loop's.
const SMALL_HEAL: Omit<ProbeShape, 'seed'> = {
  kind: 'heal',
  nodes: 20,
  routine: 0.02,
  pace: 1,
  notReadyShare: 0.15,
  delay: 30,
};

const describeShape = (s: Omit<ProbeShape, 'seed'>) =>
  [
    `${s.kind} on ${s.nodes} nodes`,
    s.pace > 0 ? ` at ${s.pace} a minute` : '',
    s.kind === 'loop' || s.kind === 'heal' ? `, ${s.delay} minutes after NotReady` : '',
    s.notReadyShare !== undefined && s.kind !== 'loop' ? `, ${Math.round(s.notReadyShare * s.nodes)} NotReady` : '',
    s.struggling ? ', control plane struggling' : '',
  ].join('');

describe('node-repair-storm on repair loops it was not written from', () => {
  it.each(LOOPS.map((shape) => [describeShape(shape), shape] as const))(
    'pages once per run, within 3 minutes of the repairs in at least 8 of 10 runs: %s',
    async (_name, shape) => {
      const runs = await Promise.all(SEEDS.map((seed) => pagesOf({ ...shape, seed })));

      expect([
        runs.filter((pages) => pages.length !== 1 || pages[0]?.[0] !== 'node-repair-storm').length,
        runs.filter(([page]) => page !== undefined && page[1] >= 0 && page[1] <= 3).length >= 8,
      ]).toEqual([0, true]);
    },
  );

  it.each(LOOPS.filter((shape) => !shape.struggling).map((shape) => [describeShape(shape), shape] as const))(
    'pages inside a node upgrade window, within 3 minutes of the repairs in at least 8 of 10 runs: %s',
    async (_name, shape) => {
      const runs = await Promise.all(SEEDS.map((seed) => pagesOf({ ...shape, seed }, true)));

      expect(
        runs.filter(([page]) => page?.[0] === 'node-repair-storm' && page[1] >= 0 && page[1] <= 3).length,
      ).toBeGreaterThanOrEqual(8);
    },
  );

  it.each(HEALS.map((shape) => [describeShape(shape), shape] as const))(
    'pages no one on the repairs of a heal in any of 10 runs: %s',
    async (_name, shape) => {
      const runs = await Promise.all(SEEDS.map((seed) => pagesOf({ ...shape, seed })));

      expect(runs.flat().filter(([, minute]) => minute >= 0)).toEqual([]);
    },
  );

  it(`pages on the repairs of a heal in at most 1 of 10 runs: ${describeShape(SMALL_HEAL)}`, async () => {
    const runs = await Promise.all(SEEDS.map((seed) => pagesOf({ ...SMALL_HEAL, seed })));

    expect(runs.filter((pages) => pages.some(([, minute]) => minute >= 0)).length).toBeLessThanOrEqual(1);
  });

  it.each(TWINS.map((shape) => [describeShape(shape), shape] as const))(
    'pages no one in any of 10 runs: %s',
    async (_name, shape) => {
      const runs = await Promise.all(SEEDS.map((seed) => pagesOf({ ...shape, seed })));

      expect(runs.flat()).toEqual([]);
    },
  );
});
