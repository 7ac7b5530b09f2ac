import { describeEvidence, evaluateCluster } from '../../../shared/engine/stages/evaluate.ts';
import { flagRule, ruleSetOf, windowOf } from '../../support/engine-fixtures.ts';

/** Pages as soon as writes are slow; inside a mute, pages anyway once they take 4 s or more. */
const degraded = flagRule('degraded', 'apiserver.write.p99', {
  maintenance: { notifyWhen: { kind: 'threshold', of: 'apiserver.write.p99', op: '>=', value: 4 } },
});
const rules = ruleSetOf(flagRule('storm', 'nodes.replaced'), degraded).forCluster([]);

/** Read dev-a with nodes replaced and writes as the two-sample series say, `muted` or not. */
const read = (replaced: string, writeP99: string, muted = false) =>
  evaluateCluster('dev-a', windowOf({ 'nodes.replaced': replaced, 'apiserver.write.p99': writeP99 }), rules, muted);

describe('the evaluate stage', () => {
  it('gives every rule of the cluster a finding, in the rule set order', () => {
    const reading = read('0 1', '0 0');

    expect(reading.findings.map((f) => [f.cluster, f.rule, f.verdict])).toEqual([
      ['dev-a', 'storm', 'met'],
      ['dev-a', 'degraded', 'unmet'],
    ]);
  });

  it('lists the rules whose condition is met as firing', () => {
    const reading = read('0 1', '0 2');

    expect([...reading.firing]).toEqual(['storm', 'degraded']);
  });

  it('leaves a maintenance condition unevaluated while no mute covers the cluster', () => {
    const reading = read('0 0', '0 5');

    expect([...reading.severe.keys()]).toEqual([]);
  });

  it('says what a maintenance condition observed while it holds under a mute', () => {
    const reading = read('0 0', '0 5', true);

    expect([...reading.severe]).toEqual([['degraded', 'apiserver.write.p99 (latest sample) = 5 s, threshold >= 4 s']]);
  });

  it('describes only the comparisons that passed', () => {
    const text = describeEvidence([
      { what: 'a', over: 'x', observed: 0.523, op: '>=', threshold: 0.5, unit: 'ratio', passed: true },
      { what: 'b', over: 'y', observed: 1, op: '>=', threshold: 4, unit: 'seconds', passed: false },
    ]);

    expect(text).toBe('a (x) = 0.523, threshold >= 0.5');
  });

  it('writes a change ratio with its x, as every page and the digest do', () => {
    const text = describeEvidence([
      { what: 'change of a', over: 'z', observed: 3, op: '>=', threshold: 2, unit: 'x', passed: true },
    ]);

    expect(text).toBe('change of a (z) = 3x, threshold >= 2x');
  });
});
