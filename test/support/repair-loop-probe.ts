import { seededRandom } from '../../support/seeded-random.ts';

/**
 * A node-repair probe: one cluster's stock signals around a repair loop or one of its benign twins, at any size and
 * pace, with seeded noise (Poisson counts) and missing datapoints, so that tests can show a rule generalizes beyond
 * the shipped scenarios. The shapes follow docs/rules.md, "How each failure shows in the signals".
 */
export type ProbeKind = 'loop' | 'heal' | 'rotation' | 'zone-cut' | 'scale-down';

export interface ProbeShape {
  readonly kind: ProbeKind;
  readonly nodes: number;
  /** Possible repairs a minute of the cluster's routine churn (consolidation, drift, upgrades). */
  readonly routine: number;
  /** Extra replacements a minute: the loop's capped pace, the rotation's or the scale-down's. */
  readonly pace: number;
  /**
   * Share of the nodes NotReady: held by the loop (under the brake) or by the zone cut (above it), or dead until the
   * heal's repairs replace them.
   */
  readonly notReadyShare?: number;
  /** Minutes the NotReady share precedes the loop's repairs (the repair delay), and minutes it takes to build. */
  readonly delay?: number;
  readonly ramp?: number;
  /** A control plane that struggles (3 to 4.5 % of requests answered 5xx, writes at 0.6 to 0.9 s) from NotReady on. */
  readonly struggling?: boolean;
  /** Nodes a rotation's joiners keep NotReady while they boot. */
  readonly joiners?: number;
  /** Minutes a healed node's replacement is NotReady once it has registered, the minute after its repair. */
  readonly boot?: number;
  /** Minutes the loop, rotation or scale-down lasts. */
  readonly lasts?: number;
  readonly seed: number;
}

/** The minute the loop's repairs (or the twin's replacements) begin. */
export const PROBE_ONSET = 150;
const STEPS = 240;

function poisson(next: () => number, mean: number): number {
  if (mean <= 0) return 0;
  const limit = Math.exp(-mean);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= next();
  } while (p > limit);
  return k - 1;
}

/** The probe as a scenario file's JSON, one cluster named `probe`, sampled every minute from 06:00Z. */
export function repairLoopProbe(shape: ProbeShape): Record<string, unknown> {
  const next = seededRandom(shape.seed);
  const { nodes } = shape;
  const delay = shape.delay ?? 10;
  const lasts = shape.lasts ?? STEPS;
  const sickFrom = PROBE_ONSET - delay;
  const signals = {
    'apiserver.write.p99': [] as (number | null)[],
    'apiserver.requests': [] as (number | null)[],
    'apiserver.5xx': [] as (number | null)[],
    'nodes.total': [] as (number | null)[],
    'nodes.notready': [] as (number | null)[],
    'nodes.replaced': [] as (number | null)[],
    'nodes.interrupted': [] as (number | null)[],
    'nodes.scaledin': [] as (number | null)[],
  };
  const requestsPerMinute = 200 + nodes * 25;
  // The heal: its dead nodes stay NotReady until a repair replaces each, and the replacement is NotReady while it boots.
  let dead = shape.kind === 'heal' ? Math.round((shape.notReadyShare ?? 0.1) * nodes) : 0;
  const booted: number[] = [];
  for (let t = 0; t < STEPS; t++) {
    const during = t >= PROBE_ONSET && t < PROBE_ONSET + lasts;
    // A node or two of a large cluster is NotReady at any minute: joining, draining, under pressure.
    let notReady = poisson(next, Math.max(0.2, nodes * 0.001));
    let repairs = poisson(next, shape.routine);
    const interrupted = poisson(next, shape.routine * 0.3);
    let scaledIn = 0;
    const held = (shape.kind === 'loop' || shape.kind === 'zone-cut') && t >= sickFrom;
    if (held) {
      const built = Math.min(1, (t - sickFrom + 1) / (shape.ramp ?? 2));
      notReady += Math.round((shape.notReadyShare ?? 0.1) * nodes * built * (0.95 + 0.1 * next()));
    }
    if (shape.kind === 'loop' && during) repairs += poisson(next, shape.pace);
    if (shape.kind === 'heal' && t >= sickFrom) {
      const healed = during ? Math.min(dead, poisson(next, shape.pace)) : 0;
      dead -= healed;
      repairs += healed;
      booted.push(healed);
      // A replacement registers about a minute after its repair and is NotReady while it finishes joining.
      notReady += dead + booted.slice(-1 - (shape.boot ?? 1), -1).reduce((sum, n) => sum + n, 0);
    }
    if (shape.kind === 'rotation' && during) {
      repairs += poisson(next, shape.pace);
      notReady += poisson(next, shape.joiners ?? 3);
    }
    if (shape.kind === 'scale-down' && during) scaledIn = poisson(next, shape.pace);
    const struggling = shape.struggling === true && t >= sickFrom;
    const requests = Math.round(requestsPerMinute * (0.95 + 0.1 * next()));
    signals['apiserver.write.p99'].push(Number((struggling ? 0.6 + 0.3 * next() : 0.18 + 0.06 * next()).toFixed(2)));
    signals['apiserver.requests'].push(requests);
    signals['apiserver.5xx'].push(
      struggling ? Math.round(requests * (0.03 + 0.015 * next())) : poisson(next, requests * 0.0002),
    );
    signals['nodes.total'].push(nodes);
    signals['nodes.notready'].push(Math.min(nodes, notReady));
    signals['nodes.replaced'].push(repairs + interrupted + scaledIn);
    signals['nodes.interrupted'].push(interrupted);
    signals['nodes.scaledin'].push(scaledIn);
  }
  // An occasional missing datapoint on the CloudWatch signals (the node events come from the ledger, never missing).
  // Container Insights publishes the node count and the NotReady count in one record, so they go missing together.
  for (const together of [
    ['apiserver.write.p99'],
    ['apiserver.requests'],
    ['nodes.total', 'nodes.notready'],
  ] as const) {
    for (let gap = 0; gap < 3; gap++) {
      const at = Math.floor(next() * STEPS);
      for (const signal of together) signals[signal][at] = null;
    }
  }
  return {
    format: 'sentinel.scenario/v1',
    name: `probe-${shape.kind}-${nodes}`,
    start: '2026-03-11T06:00:00Z',
    stepSeconds: 60,
    clusters: { probe: { signals } },
  };
}
