import { asQuotient, type ChangeCondition, type Condition, type Operand } from '../../shared/engine/condition.ts';
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

  describe('a change of a share between windows', () => {
    const riseOf = (of: Operand, mode: 'delta' | 'ratio' = 'delta', op: '>=' | '<=' = '>='): ChangeCondition => ({
      kind: 'change',
      of,
      aggregate: 'avg',
      window: '1h',
      baseline: '6h',
      mode,
      op,
      value: mode === 'delta' ? 0.005 : 1.2,
    });
    /** Six hours at `before` then an hour at `now`, each a share of `perMinute` requests, as whole errors a minute. */
    const hours = (perMinute: number, before: number, now: number) =>
      windowOf({
        'apiserver.5xx': `${Math.round(perMinute * before)}*360 ${Math.round(perMinute * now)}*60`,
        'apiserver.requests': `${perMinute}*420`,
      });

    it('reads a difference at the end of Newcombe’s interval nearest to no change', () => {
      // Newcombe, Statistics in Medicine 1998, method 10: 56/70 - 48/80 = 0.2, interval 0.0524 to 0.3339.
      const window = windowOf({ 'apiserver.5xx': '48 56', 'apiserver.requests': '80 70' });
      const change = (op: '>=' | '<='): Condition => ({
        ...riseOf(errorShare, 'delta', op),
        window: '1m',
        baseline: '1m',
      });

      expect(evaluateCondition(change('>='), window, {}).evidence[0]?.observed).toBeCloseTo(0.0524, 4);
      expect(evaluateCondition(change('<='), window, {}).evidence[0]?.observed).toBeCloseTo(0.3339, 4);
    });

    it('does not count a rise from 3 % to 3.6 % of 100 requests a minute, which chance alone gives', () => {
      const result = evaluateCondition(riseOf(errorShare), hours(100, 0.03, 0.036), {});

      expect(result.verdict).toBe('unmet');
    });

    it('counts the same rise on 50,000 requests a minute', () => {
      const result = evaluateCondition(riseOf(errorShare), hours(50_000, 0.03, 0.036), {});

      expect(result.verdict).toBe('met');
      expect(result.evidence[0]?.observed).toBeGreaterThan(0.005);
    });

    it('pools the counts, so that a busy minute weighs more than a quiet one', () => {
      // The hour's minutes alternate 2 of 50 (4 %) and 10 of 1,000 (1 %) after six hours at 1 %: 1.1 % pooled, 2.5 %
      // as an average of the minutes' shares.
      const window = windowOf({
        'apiserver.5xx': `10*360${' 2 10'.repeat(30)}`,
        'apiserver.requests': `1000*360${' 50 1000'.repeat(30)}`,
      });

      expect(evaluateCondition(riseOf(errorShare), window, {}).verdict).toBe('unmet');
      expect(evaluateCondition(riseOf(asQuotient(errorShare)), window, {}).verdict).toBe('met');
    });

    it('reads a ratio as the hour’s lower end over the baseline’s upper end', () => {
      const result = evaluateCondition(riseOf(errorShare, 'ratio'), hours(100, 0.01, 0.02), {});

      expect(result.evidence[0]?.unit).toBe('x');
      expect(result.evidence[0]?.observed).toBeLessThan(2);
      expect(result.evidence[0]?.observed).toBeGreaterThan(1);
    });

    it('reads no fall the counts support from a baseline that may have been nothing, as a finite ratio', () => {
      const result = evaluateCondition({ ...riseOf(errorShare, 'ratio', '<='), value: 0.5 }, hours(100, 0, 0), {});

      expect(result.verdict).toBe('unmet');
      expect(result.evidence[0]?.observed).toBe(1);
      expect(JSON.parse(JSON.stringify(result.evidence[0]))).toEqual(result.evidence[0]);
    });

    it('compares the plain averages of a share read without a confidence', () => {
      const rise: Condition = { ...riseOf(asQuotient(errorShare)), window: '2m', baseline: '4m', value: 0.04 };
      const window = windowOf({ 'apiserver.5xx': '0*4 5*2', 'apiserver.requests': '100*6' });

      expect(evaluateCondition(rise, window, {}).evidence[0]?.observed).toBeCloseTo(0.05);
    });
  });
});
