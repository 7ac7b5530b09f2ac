import { evaluateCondition } from '../../shared/engine/evaluate-condition.ts';
import { nearMisses } from '../../shared/engine/near-miss.ts';
import type { Finding } from '../../shared/engine/step.ts';
import { windowOf } from '../support/engine-fixtures.ts';

const threeOfFive = { kind: 'sustained', of: 'apiserver.write.p99', op: '>=', value: 1, m: 3, n: 5 } as const;

function findingOn(series: string): Finding {
  return {
    cluster: 'dev-a',
    rule: 'slow-writes',
    ...evaluateCondition(threeOfFive, windowOf({ 'apiserver.write.p99': series }), {}),
  };
}

describe('nearMisses', () => {
  it('reports a sustained rule whose m best samples all came within the margin', () => {
    const [miss] = nearMisses([findingOn('0.95 0.2 0.96 0.97 0.1')], 0.2);

    expect([miss?.rule, miss?.closest.observed, miss?.distance]).toEqual(['slow-writes', 0.95, expect.closeTo(0.05)]);
  });

  it('does not report a sustained rule whose newest sample alone passed', () => {
    expect(nearMisses([findingOn('0.1 0.1 0.1 0.1 1.5')], 0.2)).toEqual([]);
  });

  it('does not report a rule that fired', () => {
    expect(nearMisses([findingOn('1 1 1 0 0')], 0.2)).toEqual([]);
  });
});
