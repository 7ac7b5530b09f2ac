import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { ScenarioTripwires } from '../../shared/scenario/replay.ts';
import { type AwsHarness, clearTable, startAwsHarness } from '../../support/aws-harness.ts';
import {
  FLEET_OUTAGE_FAULTS,
  fleetOutageScenario,
  LONE_CLUSTER,
  POLLER_LIMITS,
  runFleetOutage,
} from '../../support/fleet-outage.ts';

/**
 * 100 clusters by default, to keep the suite within its time: `npm run bench` runs the same outage at 10,000 clusters
 * (bench/fleet-outage.ts), and the fleet page's size is tested past DynamoDB's item limit at 10,000 clusters by
 * test/aws/item-size-bounds.test.ts. `FLEET_CLUSTERS` sets another size.
 */
const FLEET = Number(process.env.FLEET_CLUSTERS ?? 100);

describe(`an outage of all ${FLEET} clusters in the same minute`, () => {
  let harness: AwsHarness;
  const scenario = fleetOutageScenario(FLEET);

  beforeAll(async () => {
    // dynalite in a process of its own, so that the polls' time and memory are the polls' own.
    harness = await startAwsHarness({ dynamoInChildProcess: true });
  });

  beforeEach(async () => {
    await clearTable(harness.dynamoEndpoint);
    harness.sns.published.length = 0;
  });

  afterAll(async () => {
    await harness.close();
  });

  it.each([['without faults', () => () => documentClient()], ...FLEET_OUTAGE_FAULTS])(
    'pages once, resolves once, and pages an unrelated cluster an hour later, %s',
    async (_faults, clientOf) => {
      const run = await runFleetOutage({
        harness,
        scenario,
        tripwires: new ScenarioTripwires(scenario, { writeP99Seconds: 2, errorRatio: 0.05 }),
        clientOf: clientOf(),
      });

      expect(run.subjects).toEqual([
        expect.stringMatching(new RegExp(`^\\[PAGE\\] .* and ${FLEET - 1} more$`)),
        expect.stringMatching(new RegExp(`^\\[RESOLVED\\] .* and ${FLEET - 1} more$`)),
        expect.stringContaining(LONE_CLUSTER),
      ]);
      for (const poll of run.invocations) {
        expect(poll.ms).toBeLessThan(POLLER_LIMITS.timeoutMs);
        // The test's process holds Jest and earlier test files too: the heap the polls add, from where it stood.
        expect(poll.peakHeapMb - run.heapBeforeMb).toBeLessThan(POLLER_LIMITS.memoryMb);
      }
    },
    900_000,
  );
});
