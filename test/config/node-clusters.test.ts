import { nodeClusters } from '../../shared/churn/node-termination.ts';
import { loadConfig } from '../../shared/config/deployment-config.ts';

/** Node events name a cluster by its EKS name (the node's tags) or an Auto Scaling group, within their account and Region. */
const clusters = (value: object) => {
  const { config } = loadConfig(value, 'sentinel.json');
  return nodeClusters(config.clusters, config.ops);
};
const source = { nodeGroups: ['workers'] };

describe('the cluster of a node event', () => {
  const twoMains = clusters({
    ops: { accountId: '111122223333', region: 'eu-west-1' },
    clusters: [
      { name: 'main', source },
      { name: 'main', accountId: '444455556666', region: 'eu-west-1', source },
    ],
  });

  it('is the one of that name in the event’s account and Region', () => {
    expect([
      twoMains.ofName('main', '111122223333', 'eu-west-1'),
      twoMains.ofName('main', '444455556666', 'eu-west-1'),
      twoMains.ofGroup('workers', '444455556666', 'eu-west-1'),
    ]).toEqual(['main@111122223333/eu-west-1', 'main@444455556666/eu-west-1', 'main@444455556666/eu-west-1']);
  });

  it('is none for a cluster of that name in an account or Region the configuration does not watch', () => {
    expect([
      twoMains.ofName('main', '999999999999', 'eu-west-1'),
      twoMains.ofName('main', '111122223333', 'us-east-1'),
    ]).toEqual([undefined, undefined]);
  });

  it('is the only cluster of that name when the configuration names no account or Region, as before', () => {
    const one = clusters({ clusters: [{ name: 'main', source }] });

    expect([
      one.ofName('main', '111122223333', 'us-east-1'),
      one.ofGroup('workers', '222233334444', 'eu-west-1'),
    ]).toEqual(['main', 'main']);
  });
});
