import { jest } from '@jest/globals';
import { CLOUDFORMATION_QUOTAS, EVENTBRIDGE_QUOTAS, quotaBreaches } from '../../infra/deployment-quotas.ts';
import { tripwireAlarmName } from '../../shared/pipeline/alarm-names.ts';
import {
  FLEET_OPS,
  FLEET_REGIONS,
  generatedFleet,
  type SynthesizedFleet,
  synthesizeFleet,
} from '../../support/generated-fleet.ts';

/**
 * Generated fleets of 1 to 10,000 clusters over three Regions and twenty accounts, synthesized whole: every stack
 * must deploy within CloudFormation's and EventBridge's quotas (infra/deployment-quotas.ts cites each), and every
 * cluster must have its tripwire in its own Region. Each size is synthesized once (10,000 clusters take about a
 * minute on two shared cores) and every check reads that one synth.
 */

jest.setTimeout(10 * 60_000);

// Synth prints each configuration's warnings to stderr; they are not what this is about.
let stderr: ReturnType<typeof jest.spyOn>;
beforeAll(() => {
  stderr = jest.spyOn(console, 'error').mockImplementation(() => {});
});
afterAll(() => stderr.mockRestore());

describe.each([1, 30, 300, 3_000, 10_000])('a fleet of %i clusters in 3 Regions and 20 accounts', (size) => {
  let fleet: SynthesizedFleet;
  beforeAll(() => {
    fleet = synthesizeFleet(size);
  });

  it('synthesizes stacks that each fit CloudFormation’s and EventBridge’s quotas', () => {
    expect(fleet.footprints.flatMap(quotaBreaches)).toEqual([]);
    expect(fleet.footprints.length).toBeGreaterThan(0);
  });

  it('gives every cluster a tripwire in its own Region, in the ops account that reads its metrics', () => {
    const { config, dispose } = generatedFleet(size);
    dispose();
    const clusters = (config as { clusters: { name: string; region: string }[] }).clusters;

    const misplaced = clusters.filter((cluster) => {
      const alarm = fleet.tripwireAlarms.get(tripwireAlarmName('OpsStack', cluster.name));
      return alarm?.region !== cluster.region || alarm.account !== FLEET_OPS.accountId;
    });

    expect([misplaced.map((cluster) => cluster.name), fleet.tripwireAlarms.size]).toEqual([[], clusters.length]);
  });

  it('forwards tripwire changes of every Region outside the ops Region to the ops Region', () => {
    const used = new Set(FLEET_REGIONS.slice(0, size));
    const forwarded = fleet.stacks.forwarding.map((stack) => stack.region);

    expect(forwarded.sort()).toEqual([...used].filter((region) => region !== FLEET_OPS.region).sort());
  });
});

describe('the quotas checked', () => {
  it('are the documented numbers', () => {
    expect([
      CLOUDFORMATION_QUOTAS.templateBytes,
      CLOUDFORMATION_QUOTAS.resources,
      CLOUDFORMATION_QUOTAS.outputs,
      CLOUDFORMATION_QUOTAS.parameters,
      EVENTBRIDGE_QUOTAS.eventPatternCharacters,
    ]).toEqual([1_048_576, 500, 200, 200, 2_048]);
  });

  it('name a template that breaks one, with the number and the quota', () => {
    const footprint = {
      stackName: 'TripwireStack-0',
      bytes: 1_100_000,
      resources: 501,
      outputs: 0,
      parameters: 0,
      longestEventPattern: 2_049,
    };

    expect(quotaBreaches(footprint)).toEqual([
      'TripwireStack-0: 1100000 template bytes, over the quota of 1048576',
      'TripwireStack-0: 501 resources, over the quota of 500',
      'TripwireStack-0: 2049 event pattern characters, over the quota of 2048',
    ]);
  });
});
