import { loadConfig } from '../../shared/config/deployment-config.ts';
import { hasTripwire, linkedRegions, opsPlacement } from '../../shared/config/deployment-shape.ts';

const WORKLOAD = { name: 'prod-euw1', accountId: '222233334444', region: 'eu-west-1' };
const OPS = { accountId: '111122223333', region: 'eu-west-1' };

const configWith = (poll: object = {}) => loadConfig({ ops: OPS, clusters: [WORKLOAD], poll }, 'shape.json').config;

/** Whether the one cluster has a tripwire, and whether its Region then needs the cross-account alarm roles. */
function tripwireShape(config: ReturnType<typeof configWith>): [boolean, boolean | undefined] {
  const [cluster] = config.clusters;
  if (!cluster) throw new Error('the configuration has no cluster');
  return [hasTripwire(cluster, config), linkedRegions(config, opsPlacement(config))[0]?.crossAccountAlarms];
}

describe('where a deployment needs tripwire alarms', () => {
  it('asks for the cross-account alarm roles when a linked cluster in the ops Region has a tripwire', () => {
    expect(tripwireShape(configWith())).toEqual([true, true]);
  });

  it('asks for none when the tripwires are turned off, so no sharing role is created for nothing', () => {
    expect(tripwireShape(configWith({ tripwire: { enabled: false } }))).toEqual([false, false]);
  });
});
