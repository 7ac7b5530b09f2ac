import type { Notification } from '../../shared/engine/notification.ts';
import { type ReplayResult, replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { defaultRuleSet, replaySignals, scenarioJson } from '../support/engine-fixtures.ts';

/**
 * Writes that stall in etcd or the apiserver itself, at ramp rates, healthy levels, request rates and gaps the corpus
 * does not have, and the benign latency that looks like them: control-plane-degraded pages a stall within 3 minutes
 * of the write p99 reaching 2 s and no later than a plain alarm on the write p99 (1 s in 3 of 3 minutes) would, once;
 * spikes, a drift under the SLO and an upgrade's blips inside its window page no one.
 */

const MINUTE = 60_000;
const QUIET = 60;
const AFTER = 30;

/** The same noise on every run: a linear congruential generator, as a scenario generator would seed one. */
function noise(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648 - 0.5;
  };
}

/** A cluster's signals around a write p99 series: requests and a trickle of 5xx in proportion, a fast webhook. */
function stalled(writeP99: readonly (number | null)[], requestsPerMinute: number, webhookP99 = 0.06) {
  const steps = writeP99.length;
  return {
    'apiserver.write.p99': writeP99.map((v) => (v === null ? '_' : String(v))).join(' '),
    'apiserver.requests': `${requestsPerMinute}*${steps}`,
    'apiserver.5xx': `${Math.max(1, Math.round(requestsPerMinute * 0.0003))}*${steps}`,
    'webhook.p99': `${webhookP99}*${steps}`,
  };
}

/** An hour at `healthy`, then the p99 climbing by `perMinute` to 6 s and held there, then back; noise of ±`jitter`. */
function ramp(healthy: number, perMinute: number, jitter: number, seed = 7): number[] {
  const next = noise(seed);
  const levels: number[] = Array<number>(QUIET).fill(healthy);
  for (let v = healthy + perMinute; v < 6; v += perMinute) levels.push(v);
  levels.push(...Array<number>(AFTER).fill(6), ...Array<number>(20).fill(healthy));
  return levels.map((v) => Number((v * (1 + 2 * jitter * next())).toFixed(3)));
}

const pages = (result: ReplayResult) => result.notifications.filter((n) => n.kind === 'page');
const minuteOf = (result: ReplayResult, notification: Notification | undefined) =>
  notification ? (Date.parse(notification.at) - result.scenario.start) / MINUTE : Number.NaN;
/** The first minute at or above `level`, and the first minute of three in a row at or above it. */
const firstAt = (series: readonly (number | null)[], level: number) =>
  series.findIndex((v) => v !== null && v >= level);
const firstRunOfThree = (series: readonly (number | null)[], level: number) =>
  series.findIndex((_, m) => m >= 2 && [0, 1, 2].every((back) => (series[m - back] ?? 0) >= level));

describe('an etcd write stall at rates, levels and sizes the corpus does not have', () => {
  it.each([
    // healthy p99, climb per minute, requests per minute (5 to 2,000 nodes)
    [0.15, 0.15, 100],
    [0.4, 0.3, 9_000],
    [0.4, 0.56, 200_000],
    [0.25, 1, 30_000],
    [0.4, 2.5, 200_000],
  ])(
    'pages a ramp from %f s climbing %f s a minute at %i requests a minute once, within 3 minutes of 2 s and no later than a 1 s alarm',
    async (healthy, perMinute, requests) => {
      const writeP99 = ramp(healthy, perMinute, 0.05);
      const onset = firstAt(writeP99, 2);
      const alarm = firstRunOfThree(writeP99, 1);

      const result = await replaySignals(stalled(writeP99, requests));
      const page = minuteOf(result, pages(result)[0]);

      expect([pages(result).map((p) => p.rule), page - onset <= 3]).toEqual([['control-plane-degraded'], true]);
      expect(page).toBeLessThanOrEqual(Math.max(onset, alarm));
    },
  );

  it.each([2.5, 5])('pages a step to %f s on a 5-node cluster within 2 minutes', async (level) => {
    const writeP99 = [...Array<number>(QUIET).fill(0.15), ...Array<number>(AFTER).fill(level)];

    const result = await replaySignals(stalled(writeP99, 100));

    expect([pages(result).map((p) => p.rule), minuteOf(result, pages(result)[0]) - QUIET <= 2]).toEqual([
      ['control-plane-degraded'],
      true,
    ]);
  });

  it.each([
    ['the minute before 2 s', -1],
    ['the minute it reaches 2 s', 0],
  ])('pages a ramp that loses its write p99 for %s within 3 minutes', async (_, offset) => {
    const writeP99: (number | null)[] = ramp(0.4, 0.56, 0.05);
    const onset = firstAt(writeP99, 2);
    writeP99[onset + offset] = null;

    const result = await replaySignals(stalled(writeP99, 200_000));

    expect([pages(result).map((p) => p.rule), minuteOf(result, pages(result)[0]) - onset <= 3]).toEqual([
      ['control-plane-degraded'],
      true,
    ]);
  });

  it('waits for 10 of 12 minutes when the p99 holds at 1.5 s without climbing', async () => {
    const writeP99 = [...Array<number>(QUIET).fill(0.4), ...Array<number>(AFTER).fill(1.5)];

    const result = await replaySignals(stalled(writeP99, 9_000));

    expect(minuteOf(result, pages(result)[0])).toBe(QUIET + 9);
  });
});

describe('write latency that is no stall', () => {
  const healthy = (minutes: number, seed = 3) => {
    const next = noise(seed);
    return Array.from({ length: minutes }, () => Number((0.4 * (1 + 0.3 * next())).toFixed(3)));
  };

  it('pages no one for a one-minute spike to 3 s', async () => {
    const writeP99 = healthy(120);
    writeP99[70] = 3;

    const result = await replaySignals(stalled(writeP99, 9_000));

    expect(pages(result)).toEqual([]);
  });

  it('pages no one for a two-minute spike that climbs to 2.7 s and falls back', async () => {
    const writeP99 = healthy(120);
    writeP99[70] = 1.3;
    writeP99[71] = 2.7;

    const result = await replaySignals(stalled(writeP99, 9_000));

    expect(pages(result)).toEqual([]);
  });

  it('pages no one for a slow drift from 0.4 s to 0.95 s over two hours, under the SLO', async () => {
    const next = noise(5);
    const writeP99 = Array.from({ length: 180 }, (_, m) =>
      Number(((0.4 + (0.55 * Math.min(m, 120)) / 120) * (1 + 0.06 * next())).toFixed(3)),
    );

    const result = await replaySignals(stalled(writeP99, 30_000));

    expect(pages(result)).toEqual([]);
  });

  it('pages no one for an upgrade whose apiserver restarts climb for three minutes inside its maintenance window', async () => {
    // Three restarts ten minutes apart, each three minutes of writes climbing to 2.3 s (KubeCon talk on restarts).
    const writeP99 = healthy(120);
    for (const at of [60, 70, 80]) writeP99.splice(at, 3, 1.7, 2.0, 2.3);
    const scenario = parseScenario(
      scenarioJson({
        clusters: { 'prod-a': { signals: stalled(writeP99, 9_000) } },
        maintenance: [{ cluster: 'prod-a', from: '+55m', to: '+95m', reason: 'control plane upgrade' }],
      }),
      'upgrade.json',
    );

    const result = await replayScenario(scenario, { ruleSet: defaultRuleSet() });

    expect(pages(result)).toEqual([]);
  });

  it('pages no one on the control plane for a slow webhook that taxes every write by 1.3 s', async () => {
    const writeP99 = healthy(180).map((v, m) => (m >= 60 ? Number((v + 1.3).toFixed(3)) : v));

    const result = await replaySignals({ ...stalled(writeP99, 9_000), 'webhook.p99': `0.05*60 1.3*120` });

    expect(pages(result)).toEqual([]);
  });
});
