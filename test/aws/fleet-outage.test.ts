import { readFileSync } from 'node:fs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { documentClient, snsClient } from '../../aws/clients.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { SnsNotifier } from '../../aws/sns/notifier.ts';
import { compileRuleSet } from '../../shared/config/deployment-config.ts';
import { POLLER_MEMORY_MB } from '../../shared/digest/cost-model.ts';
import { buildPlan } from '../../shared/pipeline/build-plan.ts';
import { runPoll } from '../../shared/pipeline/poll.ts';
import { formatCompactSeries, parseCompactSeries } from '../../shared/scenario/compact-series.ts';
import { ScenarioMetricSource, ScenarioTripwires } from '../../shared/scenario/replay.ts';
import { parseScenario, type Scenario } from '../../shared/scenario/scenario.ts';
import { parseJson } from '../../shared/schema-errors.ts';
import { type AwsHarness, clearTable, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { dyingAtFirstOutboxWrite } from '../support/dying-client.ts';
import { repoPath } from '../support/engine-fixtures.ts';

/**
 * 100 clusters by default, to keep the suite within its time: the fleet page's size is tested past DynamoDB's item
 * limit at 10,000 clusters by test/aws/item-size-bounds.test.ts. `FLEET_CLUSTERS=10000` runs this at the largest fleet
 * the configuration accepts (shared/config/fleet-size.ts), which takes many minutes on dynalite, whose writes all run
 * in this one process.
 */
const FLEET = Number(process.env.FLEET_CLUSTERS ?? 100);
/** The poller's timeout (infra/ops-stack.ts). */
const POLLER_TIMEOUT_MS = 50_000;
const LONE = 'lone-cluster';
const HOUR_STEPS = 60;

/**
 * Every cluster of the fleet goes through dev-a's webhook outage of scenarios/fleet-webhook-outage.json in the same
 * minute (steps 75 to 114); one cluster outside the fleet goes through the same outage an hour after it ended.
 */
function fleetOutage(): Scenario {
  const file = repoPath('scenarios/fleet-webhook-outage.json');
  const raw = parseJson(readFileSync(file, 'utf8'), file) as {
    clusters: Record<string, { signals: Record<string, string> }>;
  };
  const template = raw.clusters['dev-a']?.signals ?? {};
  // The same outage, HOUR_STEPS + 40 steps later (an hour after it ended): healthy until then.
  const shift = HOUR_STEPS + 40;
  const later = Object.fromEntries(
    Object.entries(template).map(([signal, series]) => {
      const samples = parseCompactSeries(series);
      const shifted = [...Array(shift).fill(samples[0]), ...samples.slice(0, samples.length - shift)];
      return [signal, formatCompactSeries(shifted)];
    }),
  );
  const scenario = parseScenario(
    { ...raw, clusters: { 'fleet-0': { signals: template }, [LONE]: { signals: later } }, maintenance: [], expect: [] },
    file,
  );
  const shared = scenario.clusters.get('fleet-0');
  const lone = scenario.clusters.get(LONE);
  if (!shared || !lone) throw new Error('the scenario lost its clusters');
  // One series shared by every cluster: the fleet costs the test no memory of its own.
  const clusters = new Map([...Array.from({ length: FLEET }, (_, i) => [`fleet-${i}`, shared] as const), [LONE, lone]]);
  return { ...scenario, clusters };
}

describe(`an outage of all ${FLEET} clusters in the same minute`, () => {
  let harness: AwsHarness;
  const scenario = fleetOutage();
  const plan = buildPlan({
    ruleSet: compileRuleSet([], 'rules'),
    clusters: [...scenario.clusters.keys()],
    maintenance: [],
    stepSeconds: 60,
  });
  const stepAt = (index: number) => scenario.start + index * 60_000;
  let figures: { polls: number; slowestMs: number; peakRssMb: number; peakHeapMb: number };
  // The test's process also holds dynalite, the loopback servers and what earlier test files left in this worker:
  // the heap the polls add is measured from where it stood before them, an upper bound of what a poller would hold.
  let heapBeforeMb = 0;
  const subjects = () => harness.sns.published.map((m) => m.subject ?? '');

  beforeAll(async () => {
    harness = await startAwsHarness();
  });

  beforeEach(async () => {
    await clearTable(harness.dynamoEndpoint);
    harness.sns.published.length = 0;
    figures = { polls: 0, slowestMs: 0, peakRssMb: 0, peakHeapMb: 0 };
    heapBeforeMb = process.memoryUsage().heapUsed / 2 ** 20;
  });

  afterAll(async () => {
    await harness.close();
  });

  /**
   * Poll the steps from `from` to `to` as the poller would, a few seconds after each minute, on `client`, until
   * `until` holds of what was published (the steps after it would only cost the suite time).
   */
  async function pollSteps(
    from: number,
    to: number,
    client: () => DynamoDBDocumentClient,
    until: (subjects: string[]) => boolean,
  ) {
    for (let index = from; index <= to && !until(subjects()); index++) {
      const now = stepAt(index) + 63_000;
      const started = performance.now();
      await runPoll(
        {
          plan,
          metrics: new ScenarioMetricSource(scenario),
          ...dynamoDbStores({ client: client(), table: TABLE, now: () => now }),
          notifier: new SnsNotifier(snsClient(), { paging: harness.topics.paging, notice: harness.topics.notice }),
          tripwires: new ScenarioTripwires(scenario, { writeP99Seconds: 2, errorRatio: 0.05 }),
          owner: `poll-${index}`,
          now: () => now,
          leaseMs: 60_000,
        },
        stepAt(index),
      ).catch(() => undefined);
      const { rss, heapUsed } = process.memoryUsage();
      if (process.env.FLEET_TRACE) {
        process.stderr.write(
          `step ${index}: ${Math.round(performance.now() - started)} ms, ${subjects().length} sent\n`,
        );
      }
      figures = {
        polls: figures.polls + 1,
        slowestMs: Math.max(figures.slowestMs, performance.now() - started),
        peakRssMb: Math.max(figures.peakRssMb, rss / 2 ** 20),
        peakHeapMb: Math.max(figures.peakHeapMb, heapUsed / 2 ** 20 - heapBeforeMb),
      };
    }
  }

  it.each([
    ['without faults', () => documentClient],
    ['with the poll that pages killed in the middle of its step', dyingAtFirstOutboxWrite],
  ])(
    'pages once, resolves once, and pages an unrelated cluster an hour later, %s',
    async (_faults, clientOf) => {
      const client = clientOf();
      const started = performance.now();
      // The outage begins at step 75: the page; it ends after step 114: the resolve, after the hold-down; then the
      // lone cluster's outage, an hour after the fleet's ended.
      await pollSteps(74, 80, client, (sent) => sent.length >= 1);
      await pollSteps(115, 135, client, (sent) => sent.length >= 2);
      await pollSteps(115 + HOUR_STEPS, 115 + HOUR_STEPS + 8, client, (sent) => sent.length >= 3);

      process.stdout.write(
        `fleet outage of ${FLEET} clusters: ${JSON.stringify({ ...figures, totalMs: Math.round(performance.now() - started) })}\n`,
      );
      expect(subjects()).toEqual([
        expect.stringMatching(new RegExp(`^\\[PAGE\\] .* and ${FLEET - 1} more$`)),
        expect.stringMatching(new RegExp(`^\\[RESOLVED\\] .* and ${FLEET - 1} more$`)),
        expect.stringContaining(LONE),
      ]);
      expect(figures.slowestMs).toBeLessThan(POLLER_TIMEOUT_MS);
      expect(figures.peakHeapMb).toBeLessThan(POLLER_MEMORY_MB);
    },
    900_000,
  );
});
