import type { ReplayResult } from '../../shared/scenario/replay.ts';
import { defaultRuleSet, replaySignals, runEngine, T0 } from '../support/engine-fixtures.ts';
import { nodesCutOffSignals as cluster } from '../support/node-signals.ts';

/**
 * Half the nodes or more going NotReady while Container Insights loses a minute or two of the NotReady count (its
 * agent on a node that went down, a new leader taking over), at sizes, speeds and gap positions the corpus does not
 * have: nodes-notready-at-scale pages the first present minute at half when the minutes around the gap already
 * decide it, and no later than reading the cluster every minute would where the gap hides the tripwire's breach; a
 * node count that glitches, a zone cut off and a planned rotation with a few NotReady page no one.
 */

const MINUTE = 60_000;
const QUIET = 60;
const AFTER = 40;

type Count = number | null;

/** An hour quiet, then `perMinute` of the nodes more NotReady each minute up to `level`, held for 40 minutes. */
function climb(total: number, perMinute: number, level: number): Count[] {
  const minutes = Math.ceil(level / perMinute);
  return [
    ...Array<number>(QUIET).fill(0),
    ...Array.from({ length: minutes }, (_, i) => Math.round(total * Math.min(level, perMinute * (i + 1)))),
    ...Array<number>(AFTER).fill(Math.round(total * level)),
  ];
}

/** `length` missing minutes from `offset` minutes after the first minute at half. */
function withGap(total: number, counts: Count[], offset: number, length: number): Count[] {
  const half = counts.findIndex((n) => n !== null && n / total >= 0.5);
  return counts.map((n, m) => (m >= half + offset && m < half + offset + length ? null : n));
}

const firstPresentAtHalf = (total: number, counts: readonly Count[]) =>
  counts.findIndex((n) => n !== null && n / total >= 0.5);
const pages = (result: ReplayResult) => result.notifications.filter((n) => n.kind === 'page');
const pageMinute = (result: ReplayResult) => {
  const [page] = pages(result);
  return page ? (Date.parse(page.at) - result.scenario.start) / MINUTE : undefined;
};

describe('NotReady climbing past half while its count loses minutes', () => {
  it.each([
    // nodes, NotReady a minute (share of the nodes), first missing minute from the first at half, missing minutes
    [2_000, 0.07, -2, 2],
    [2_000, 0.07, -1, 2],
    [2_000, 0.07, 0, 2],
    [300, 0.1, -1, 1],
    [300, 0.04, 0, 1],
    [600, 0.15, -1, 1],
  ])(
    'pages %i nodes climbing by %f a minute with the count missing from minute %i for %i the first present minute at half, on a cluster routine scaling keeps read',
    async (total, perMinute, offset, length) => {
      const counts = withGap(total, climb(total, perMinute, 0.8), offset, length);

      const result = await replaySignals(cluster(total, counts, Math.round(2_000 / total)));

      expect([pages(result).map((p) => p.rule), pageMinute(result)]).toEqual([
        ['nodes-notready-at-scale'],
        firstPresentAtHalf(total, counts),
      ]);
    },
  );

  it.each([
    [12, 0.15, -1, 1],
    [48, 0.1, -2, 2],
  ])(
    'pages %i nodes climbing by %f a minute with the count missing from minute %i for %i when every-minute reads would, the tripwire holding through the gap',
    async (total, perMinute, offset, length) => {
      const counts = withGap(total, climb(total, perMinute, 0.8), offset, length);
      const everyMinute = runEngine({ rules: defaultRuleSet().rules, clusters: { 'dev-a': cluster(total, counts) } });
      const [everyMinutePage] = everyMinute.notifications.filter((n) => n.kind === 'page');

      const result = await replaySignals(cluster(total, counts));

      expect([pages(result).map((p) => p.rule), pageMinute(result)]).toEqual([
        ['nodes-notready-at-scale'],
        everyMinutePage && (Date.parse(everyMinutePage.at) - T0) / MINUTE,
      ]);
    },
  );

  it('waits for a second minute at half when the gap hides whether the share climbed or jumped', async () => {
    // 600 nodes: 15 %, two minutes missing, then 60 %: a quarter before half is not decided, the jump branch is.
    const counts = withGap(600, climb(600, 0.15, 0.8), -2, 2);

    const result = await replaySignals(cluster(600, counts, 3));

    expect(pageMinute(result)).toBe(firstPresentAtHalf(600, counts) + 1);
  });
});

describe('NotReady with gaps that is not half the nodes cut off', () => {
  it('pages no one for a count that glitches past half for one minute between two missing ones', async () => {
    const counts: Count[] = [...Array<number>(QUIET).fill(2), null, 180, null, ...Array<number>(AFTER).fill(2)];

    const result = await replaySignals(cluster(300, counts));

    expect(pages(result)).toEqual([]);
  });

  it('pages no one for one zone of three cut off, its count missing for two minutes', async () => {
    const counts: Count[] = [...Array<number>(QUIET).fill(3), 300, 640, null, null, ...Array<number>(AFTER).fill(650)];

    const result = await replaySignals(cluster(1_950, counts, 2));

    expect([
      pages(result),
      result.notifications.some((n) => n.kind === 'ticket' && n.rule === 'nodes-unreachable'),
    ]).toEqual([[], true]);
  });

  it('pages no one for a planned rotation that keeps a few nodes NotReady for an hour, with minutes missing', async () => {
    // 300 nodes replaced a few at a time: 3 to 12 NotReady while each batch joins, a minute lost now and then.
    const counts: Count[] = Array.from({ length: 150 }, (_, m) =>
      m >= QUIET && m < QUIET + 60 ? (m % 7 === 0 ? null : 3 + (m % 10)) : 1,
    );

    const result = await replaySignals(cluster(300, counts, 1));

    expect(pages(result)).toEqual([]);
  });
});
