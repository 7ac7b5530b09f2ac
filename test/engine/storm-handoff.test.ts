import { evaluateCondition } from '../../shared/engine/evaluate-condition.ts';
import { SeriesWindow } from '../../shared/engine/signal-window.ts';
import { defaultRuleSet, loadScenario } from '../support/engine-fixtures.ts';

const rules = defaultRuleSet().forCluster([]);
const ruleOf = (id: string) => {
  const rule = rules.find((r) => r.rule.id === id);
  if (!rule) throw new Error(`no rule ${id}`);
  return rule;
};
const storm = ruleOf('node-repair-storm');
const unreachable = ruleOf('nodes-unreachable');

/** The minutes of one cluster of a scenario at which each of the two rules' conditions is met. */
function verdicts(scenario: string, cluster: string): { storm: boolean; unreachable: boolean }[] {
  const { clusters, steps, stepSeconds } = loadScenario(scenario);
  const series = clusters.get(cluster);
  if (!series) throw new Error(`no cluster ${cluster} in ${scenario}`);
  return Array.from({ length: steps }, (_, minute) => {
    const window = new SeriesWindow(series, stepSeconds, minute);
    return {
      storm: evaluateCondition(storm.rule.when, window, storm.params).verdict === 'met',
      unreachable: evaluateCondition(unreachable.rule.when, window, unreachable.params).verdict === 'met',
    };
  });
}

describe('node-repair-storm and nodes-unreachable share one storm', () => {
  it.each([
    ['storm-with-a-quarter-notready', 'edge-use2'],
    ['storm-with-a-quarter-notready', 'edge-euc1'],
    ['repair-loop-at-capped-pace', 'batch-use1'],
    ['repair-loop-at-capped-pace', 'batch-euw1'],
    ['karpenter-repair-loop', 'ml-euc1'],
  ])('never both fire on the same minute: %s, %s', (scenario, cluster) => {
    expect(verdicts(scenario, cluster).filter((v) => v.storm && v.unreachable)).toEqual([]);
  });

  it('gives a storm of replacements with a quarter of the nodes NotReady on a healthy control plane to nodes-unreachable', () => {
    // The zone is cut off from +80m and its instances are replaced from +82m until +150m.
    const during = verdicts('storm-with-a-quarter-notready', 'edge-use2').slice(95, 150);

    expect([during.some((v) => v.storm), during.filter((v) => v.unreachable).length >= 50]).toEqual([false, true]);
  });
});
