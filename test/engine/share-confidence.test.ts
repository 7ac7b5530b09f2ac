import type { Condition } from '../../shared/engine/condition.ts';
import { evaluateCondition, shareLowerBound } from '../../shared/engine/evaluate-condition.ts';
import { errorShare, shedShare } from '../../shared/engine/rules/operands.ts';
import { windowOf } from '../support/engine-fixtures.ts';

const fivePercentIn3Of4: Condition = { kind: 'sustained', of: shedShare, op: '>=', value: 0.05, m: 3, n: 4 };

describe('a share of events read by what its counts show', () => {
  it('stays near the quotient for many events and falls well below it for a handful', () => {
    expect(shareLowerBound(12_000, 200_000, 0.95)).toBeGreaterThan(0.058);
    expect(shareLowerBound(8, 100, 0.95)).toBeLessThan(0.05);
  });

  it('does not take 4 % of 100 requests a minute past 5 % on the minutes chance lifts to 6, 7 and 8 errors', () => {
    const window = windowOf({ 'apiserver.5xx': '7 6 8 7', 'apiserver.429': '0*4', 'apiserver.requests': '100*4' });

    expect(evaluateCondition(fivePercentIn3Of4, window, {}).verdict).toBe('unmet');
  });

  it('passes 6 % of 200,000 requests a minute and 35 % of 100', () => {
    const large = windowOf({ 'apiserver.5xx': '12000*4', 'apiserver.429': '0*4', 'apiserver.requests': '200000*4' });
    const small = windowOf({ 'apiserver.5xx': '35*4', 'apiserver.429': '0*4', 'apiserver.requests': '100*4' });

    expect(evaluateCondition(fivePercentIn3Of4, large, {}).verdict).toBe('met');
    expect(evaluateCondition(fivePercentIn3Of4, small, {}).verdict).toBe('met');
  });

  it('compares the plain shares when a change weighs one window against another', () => {
    const rise: Condition = {
      kind: 'change',
      of: errorShare,
      aggregate: 'avg',
      window: '2m',
      baseline: '4m',
      mode: 'delta',
      op: '>=',
      value: 0.04,
    };
    const window = windowOf({ 'apiserver.5xx': '0*4 5*2', 'apiserver.requests': '100*6' });

    expect(evaluateCondition(rise, window, {}).evidence[0]?.observed).toBeCloseTo(0.05);
  });
});
