import { describe, expect, it } from '@jest/globals';
import { SHARD_SIZE } from '../../shared/pipeline/shards.ts';
import {
  FLEET_OUTAGE_FAULTS,
  type FleetOutageRun,
  LONE_CLUSTER,
  runFleetOutage,
  withinLimits,
} from '../../support/fleet-outage.ts';
import type { FaultPlan } from '../../support/store-faults.ts';

/**
 * The fleet outage through the deployed functions, each in a container with its memory: the poller, the shard workers
 * it fans out to, the tripwire function fed the alarms' state changes and the delivery function paging PagerDuty.
 * A deployment of 150 clusters, within the suite's time: without faults in shards of 50, so that the fan-out runs as it does in a
 * fleet larger than one shard (each fanned-out poll waits a second for its shards), and with faults as the deployment
 * of 150 clusters runs, without shards. bench/fleet-outage.ts runs the same outage at 10,000 clusters.
 * `FLEET_CLUSTERS` sets another size, with the deployment's shards.
 */
const FLEET = Number(process.env.FLEET_CLUSTERS ?? 150);
const FAN_OUT_SHARD_SIZE = process.env.FLEET_CLUSTERS === undefined ? 50 : undefined;

function expectOnePageOneResolveThenTheLoneCluster(run: FleetOutageRun) {
  expect(run.subjects).toEqual([
    expect.stringMatching(new RegExp(`^\\[PAGE\\] .* and ${FLEET - 2} more \\(us-east-1\\)$`)),
    expect.stringMatching(new RegExp(`^\\[RESOLVED\\] .* and ${FLEET - 2} more \\(us-east-1\\)$`)),
    expect.stringContaining(LONE_CLUSTER),
  ]);
  // PagerDuty: the fleet's incident, opened once and resolved; the lone cluster's, open.
  expect(run.pagerDuty).toEqual([
    { status: 'resolved', triggers: 1 },
    { status: 'triggered', triggers: 1 },
  ]);
  expect(run.invocations.filter((invocation) => !withinLimits(invocation))).toEqual([]);
}

describe(`an outage of ${FLEET - 1} of ${FLEET} clusters in the same minute, through the deployed functions`, () => {
  const cases: (readonly [string, (() => FaultPlan) | undefined, readonly string[]])[] = [
    ['without faults', undefined, []],
    ...FLEET_OUTAGE_FAULTS,
  ];

  it.each(cases)(
    'pages once, resolves once, and pages an unrelated cluster an hour later, %s',
    async (_faults, plan, strikes) => {
      const shardSize = plan === undefined ? FAN_OUT_SHARD_SIZE : undefined;
      const run = await runFleetOutage({
        clusters: FLEET,
        ...(plan && { faults: plan() }),
        ...(shardSize !== undefined && { shardSize }),
      });

      expectOnePageOneResolveThenTheLoneCluster(run);
      expect(run.shardsSent > 0).toBe(shardSize !== undefined || FLEET > SHARD_SIZE);
      // Each fault the plan names struck, the lost commit's answer included: the plan sees every step's header.
      expect([...run.struck].sort()).toEqual([...strikes].sort());
      // Every cluster's tripwire went to ALARM with the outage and back to OK after it; the lone cluster's too.
      const tripwires = run.invocations.filter((invocation) => invocation.function === 'tripwire');
      expect(tripwires.length).toBeGreaterThanOrEqual(2 * (FLEET - 1) + 1);
      expect(tripwires.filter((invocation) => invocation.error !== undefined)).toEqual([]);
    },
    300_000,
  );
});
