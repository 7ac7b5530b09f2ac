import type { Notification } from '../../shared/engine/notification.ts';
import { TRIPWIRE_HOLD_MINUTES } from '../../shared/pipeline/tripwire-alarm.ts';
import { defaultRuleSet, replaySignals, runEngine, type SignalsInput, T0 } from '../support/engine-fixtures.ts';
import { nodesCutOffSignals } from '../support/node-signals.ts';

/**
 * Climbs whose tripwire metric misses a minute or two right after the tripwire first breaches, at climb rates, sizes
 * and gap lengths the corpus does not have. Metric math reads the missing write p99 or NotReady count as 0 while the
 * cluster's other metrics report, so those minutes read calm; the tripwire holds its cluster on minute reads for a
 * minute after a breach (1 of 2 datapoints), so the rule, which reads the gap from the minutes around it, pages when
 * reading every minute would through a one-minute gap, and at most a minute later through two (docs/rules.md, Known
 * limits).
 */

const MINUTE = 60_000;
const QUIET = 60;
const AFTER = 40;
/** Where the tripwire's legs breach by default (shared/pipeline/tripwire-alarm.ts): PATCH p99 1 s, 3 NotReady. */
const WRITE_BREACHES = 1;
const NOTREADY_BREACHES = 3;

type Sample = number | null;

const written = (samples: readonly Sample[]) => samples.map((v) => (v === null ? '_' : String(v))).join(' ');

/** `length` samples missing from the one after the first at or above `level`: the tripwire's first breach. */
function missingAfterFirstBreach(samples: readonly Sample[], level: number, length: number): Sample[] {
  const first = samples.findIndex((v) => v !== null && v >= level);
  return samples.map((v, m) => (m > first && m <= first + length ? null : v));
}

/** An hour at `healthy`, then the write p99 climbing by `perMinute` to 6 s and held there. */
function writeClimb(healthy: number, perMinute: number): Sample[] {
  const samples: Sample[] = Array<number>(QUIET).fill(healthy);
  for (let v = healthy + perMinute; v < 6; v += perMinute) samples.push(Number(v.toFixed(3)));
  return [...samples, ...Array<number>(AFTER).fill(6)];
}

/** A write p99 with requests and a trickle of 5xx in proportion, and a fast webhook. */
const writeStall = (writeP99: readonly Sample[], requestsPerMinute: number): SignalsInput => ({
  'apiserver.write.p99': written(writeP99),
  'apiserver.requests': `${requestsPerMinute}*${writeP99.length}`,
  'apiserver.5xx': `${Math.max(1, Math.round(requestsPerMinute * 0.0003))}*${writeP99.length}`,
  'webhook.p99': `0.06*${writeP99.length}`,
});

/** An hour with every node Ready, then `perMinute` of the nodes more NotReady each minute up to 80 %, held. */
function notReadyClimb(total: number, perMinute: number): Sample[] {
  const minutes = Math.ceil(0.8 / perMinute);
  return [
    ...Array<number>(QUIET).fill(0),
    ...Array.from({ length: minutes }, (_, i) => Math.round(total * Math.min(0.8, perMinute * (i + 1)))),
    ...Array<number>(AFTER).fill(Math.round(total * 0.8)),
  ];
}

const firstPage = (notifications: readonly Notification[], start: number) => {
  const page = notifications.find((n) => n.kind === 'page');
  return page && { rule: page.rule, minute: (Date.parse(page.at) - start) / MINUTE };
};

/** The first page as replay sends it, against reading every minute: the same page, late by the gap past the hold. */
function expectPagedAsEveryMinute(
  replayed: ReturnType<typeof firstPage>,
  everyMinute: ReturnType<typeof firstPage>,
  missing: number,
) {
  const late = Math.max(0, missing - TRIPWIRE_HOLD_MINUTES);
  expect(replayed?.rule).toBe(everyMinute?.rule);
  expect(replayed?.minute).toBeGreaterThanOrEqual(everyMinute?.minute ?? Number.NaN);
  expect(replayed?.minute).toBeLessThanOrEqual((everyMinute?.minute ?? Number.NaN) + late);
}

/** The first page as replay sends it (slow cadence, tripwire) and as reading the cluster every minute would. */
async function firstPages(signals: SignalsInput) {
  const replayed = await replaySignals(signals as Record<string, string>);
  const everyMinute = runEngine({ rules: defaultRuleSet().rules, clusters: { 'dev-a': signals } });
  return {
    replayed: firstPage(replayed.notifications, replayed.scenario.start),
    everyMinute: firstPage(everyMinute.notifications, T0),
  };
}

describe('a write stall whose p99 misses minutes right after the tripwire first breaches', () => {
  it.each([
    // healthy p99, climb per minute, requests per minute (5 to 2,000 nodes), missing minutes
    [0.4, 0.56, 9_000, 1],
    [0.15, 0.8, 100, 1],
    [0.4, 0.56, 200_000, 1],
    [0.4, 2.5, 200_000, 2],
    [0.7, 1.5, 30_000, 2],
    [0.15, 2.5, 100, 2],
  ])(
    'pages a climb from %f s by %f s a minute at %i requests a minute, %i minute(s) missing, when every-minute reads would, late by the gap past the hold',
    async (healthy, perMinute, requests, length) => {
      const writeP99 = missingAfterFirstBreach(writeClimb(healthy, perMinute), WRITE_BREACHES, length);

      const { replayed, everyMinute } = await firstPages(writeStall(writeP99, requests));

      expect(everyMinute?.rule).toBe('control-plane-degraded');
      expectPagedAsEveryMinute(replayed, everyMinute, length);
    },
  );
});

describe('NotReady climbing while its count misses minutes right after the tripwire first breaches', () => {
  it.each([
    // nodes, NotReady a minute (share of the nodes), missing minutes
    [6, 0.25, 1],
    [8, 0.15, 1],
    [12, 0.1, 1],
    [12, 0.25, 2],
    [48, 0.4, 2],
    [300, 0.25, 2],
  ])(
    'pages %i nodes climbing by %f a minute, %i minute(s) of the count missing, when every-minute reads would, late by the gap past the hold',
    async (total, perMinute, length) => {
      const counts = missingAfterFirstBreach(notReadyClimb(total, perMinute), NOTREADY_BREACHES, length);

      const { replayed, everyMinute } = await firstPages(nodesCutOffSignals(total, counts));

      expect(everyMinute?.rule).toBe('nodes-notready-at-scale');
      expectPagedAsEveryMinute(replayed, everyMinute, length);
    },
  );
});
