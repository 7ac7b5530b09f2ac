import type { ChangeCondition, Condition } from '../../shared/engine/condition.ts';
import { type ConditionResult, evaluateCondition, type Params } from '../../shared/engine/evaluate-condition.ts';
import { type SignalsInput, windowOf } from '../support/engine-fixtures.ts';

function evaluate(condition: Condition, signals: SignalsInput, params: Params = {}): ConditionResult {
  return evaluateCondition(condition, windowOf(signals), params);
}

const verdictOf = (condition: Condition, signals: SignalsInput, params: Params = {}) =>
  evaluate(condition, signals, params).verdict;

const p99Above = (value: number | `$${string}`): Condition => ({
  kind: 'threshold',
  of: 'webhook.p99',
  op: '>',
  value,
});

describe('evaluateCondition', () => {
  describe('threshold', () => {
    it('is met when the latest sample passes, with that sample as evidence', () => {
      expect(evaluate(p99Above(2.5), { 'webhook.p99': '0.5 3' })).toEqual({
        verdict: 'met',
        evidence: [
          {
            what: 'webhook.p99',
            over: 'latest sample',
            observed: 3,
            op: '>',
            threshold: 2.5,
            unit: 'seconds',
            passed: true,
            condition: { kind: 'threshold', of: 'webhook.p99' },
          },
        ],
        lacking: [],
      });
    });

    it('is unmet when the latest sample falls short, and says so in the evidence', () => {
      const result = evaluate(p99Above(2.5), { 'webhook.p99': '9 2' });

      expect([result.verdict, result.evidence[0]?.observed, result.evidence[0]?.passed]).toEqual(['unmet', 2, false]);
    });

    it('is unknown when the latest sample is missing', () => {
      expect(evaluate(p99Above(2.5), { 'webhook.p99': '9 _' })).toEqual({
        verdict: 'unknown',
        evidence: [],
        lacking: [],
      });
    });

    it('is skipped, naming the signal, when the cluster does not provide it', () => {
      expect(evaluate(p99Above(2.5), { 'apiserver.requests': '100' })).toEqual({
        verdict: 'skipped',
        evidence: [],
        lacking: ['webhook.p99'],
      });
    });

    it('compares with a $param from the parameters', () => {
      const result = evaluate(p99Above('$slow'), { 'webhook.p99': '2' }, { slow: 1.5 });

      expect([result.verdict, result.evidence[0]?.threshold]).toEqual(['met', 1.5]);
    });

    it('throws when a $param has no value, since validated rule sets never get here', () => {
      expect(() => evaluate(p99Above('$slow'), { 'webhook.p99': '2' })).toThrow('rule parameter $slow has no value');
    });

    it.each([
      ['>=', 2, 'met'],
      ['>', 2, 'unmet'],
      ['<=', 2, 'met'],
      ['<', 2, 'unmet'],
    ] as const)('applies %s to a sample equal to the threshold', (op, value, verdict) => {
      expect(verdictOf({ kind: 'threshold', of: 'webhook.p99', op, value }, { 'webhook.p99': '2' })).toBe(verdict);
    });
  });

  describe('operands', () => {
    const failureShare = (minDenominator?: number): Condition => ({
      kind: 'threshold',
      of: { ratio: ['webhook.failures', 'webhook.requests'], ...(minDenominator !== undefined && { minDenominator }) },
      op: '>=',
      value: 0.2,
    });

    it('divides a ratio and reports it as a ratio', () => {
      const result = evaluate(failureShare(), { 'webhook.failures': '50', 'webhook.requests': '100' });

      expect(result.evidence).toEqual([
        {
          what: 'webhook.failures / webhook.requests',
          over: 'latest sample',
          observed: 0.5,
          op: '>=',
          threshold: 0.2,
          unit: 'ratio',
          passed: true,
          condition: { kind: 'threshold', of: { ratio: ['webhook.failures', 'webhook.requests'] } },
        },
      ]);
    });

    it('reads a ratio as 0 when the denominator is below minDenominator', () => {
      const result = evaluate(failureShare(10), { 'webhook.failures': '5', 'webhook.requests': '9' });

      expect([result.verdict, result.evidence[0]?.observed]).toEqual(['unmet', 0]);
    });

    it('divides once the denominator reaches minDenominator', () => {
      expect(verdictOf(failureShare(10), { 'webhook.failures': '5', 'webhook.requests': '10' })).toBe('met');
    });

    it('reads a ratio over a zero denominator as 0 rather than infinity', () => {
      const result = evaluate(failureShare(), { 'webhook.failures': '3', 'webhook.requests': '0' });

      expect([result.verdict, result.evidence[0]?.observed]).toEqual(['unmet', 0]);
    });

    it('is unknown when either side of a ratio is missing', () => {
      expect(verdictOf(failureShare(), { 'webhook.failures': '_', 'webhook.requests': '100' })).toBe('unknown');
    });

    it('is skipped, naming every missing signal of a ratio', () => {
      expect(evaluate(failureShare(), { 'apiserver.requests': '1' }).lacking).toEqual([
        'webhook.failures',
        'webhook.requests',
      ]);
    });

    it('adds the terms of a sum', () => {
      const condition: Condition = {
        kind: 'threshold',
        of: { sum: ['apiserver.5xx', 'apiserver.429'] },
        op: '>=',
        value: 7,
      };
      const result = evaluate(condition, { 'apiserver.5xx': '3', 'apiserver.429': '4' });

      expect([result.verdict, result.evidence[0]?.what, result.evidence[0]?.observed]).toEqual([
        'met',
        '(apiserver.5xx + apiserver.429)',
        7,
      ]);
    });

    it('is unknown when one term of a sum is missing', () => {
      const condition: Condition = {
        kind: 'threshold',
        of: { sum: ['apiserver.5xx', 'apiserver.429'] },
        op: '>=',
        value: 1,
      };

      expect(verdictOf(condition, { 'apiserver.5xx': '30', 'apiserver.429': '_' })).toBe('unknown');
    });

    it('adds the terms the cluster provides, naming the one it lacks', () => {
      const condition: Condition = {
        kind: 'threshold',
        of: { ratio: [{ sum: ['apiserver.5xx', 'apiserver.429'] }, 'apiserver.requests'] },
        op: '>=',
        value: 0.05,
      };

      expect(evaluate(condition, { 'apiserver.5xx': '20', 'apiserver.requests': '100' })).toEqual({
        verdict: 'met',
        evidence: [
          {
            what: '(apiserver.5xx + apiserver.429) / apiserver.requests',
            over: 'latest sample',
            observed: 0.2,
            op: '>=',
            threshold: 0.05,
            unit: 'ratio',
            passed: true,
            condition: {
              kind: 'threshold',
              of: { ratio: [{ sum: ['apiserver.5xx', 'apiserver.429'] }, 'apiserver.requests'] },
            },
          },
        ],
        lacking: ['apiserver.429'],
      });
    });

    it('is skipped when the cluster provides no term of a sum', () => {
      const condition: Condition = {
        kind: 'threshold',
        of: { sum: ['apiserver.5xx', 'apiserver.429'] },
        op: '>=',
        value: 1,
      };

      expect(evaluate(condition, { 'apiserver.requests': '100' })).toEqual({
        verdict: 'skipped',
        evidence: [],
        lacking: ['apiserver.5xx', 'apiserver.429'],
      });
    });

    describe('difference', () => {
      const net = (value: number): Condition => ({
        kind: 'threshold',
        of: { difference: ['apiserver.write.p99', 'webhook.p99'] },
        op: '>=',
        value,
      });

      it('takes the second term out of the first, in the unit of the first', () => {
        const result = evaluate(net(1), { 'apiserver.write.p99': '1.2', 'webhook.p99': '1.1' });

        expect([
          result.verdict,
          result.evidence[0]?.what,
          result.evidence[0]?.observed,
          result.evidence[0]?.unit,
        ]).toEqual(['unmet', 'apiserver.write.p99 - webhook.p99', expect.closeTo(0.1), 'seconds']);
      });

      it('never goes below zero', () => {
        expect(evaluate(net(0), { 'apiserver.write.p99': '0.2', 'webhook.p99': '3' }).evidence[0]?.observed).toBe(0);
      });

      it('takes nothing out for a missing sample of the second term', () => {
        expect(evaluate(net(1), { 'apiserver.write.p99': '4', 'webhook.p99': '_' }).evidence[0]?.observed).toBe(4);
      });

      it('runs on the first term alone when the cluster lacks the second, naming it', () => {
        const result = evaluate(net(1), { 'apiserver.write.p99': '4' });

        expect([result.verdict, result.lacking]).toEqual(['met', ['webhook.p99']]);
      });

      it('is unknown when the first term is missing', () => {
        expect(verdictOf(net(1), { 'apiserver.write.p99': '_', 'webhook.p99': '0.1' })).toBe('unknown');
      });

      it('is skipped when the cluster lacks the first term', () => {
        expect(verdictOf(net(1), { 'webhook.p99': '0.1' })).toBe('skipped');
      });
    });

    it('divides a sum by a signal', () => {
      const condition: Condition = {
        kind: 'threshold',
        of: { ratio: [{ sum: ['apiserver.5xx', 'apiserver.429'] }, 'apiserver.requests'], minDenominator: 50 },
        op: '>=',
        value: 0.05,
      };
      const result = evaluate(condition, { 'apiserver.5xx': '4', 'apiserver.429': '6', 'apiserver.requests': '100' });

      expect([result.evidence[0]?.what, result.evidence[0]?.observed]).toEqual([
        '(apiserver.5xx + apiserver.429) / apiserver.requests',
        0.1,
      ]);
    });
  });

  describe('sustained', () => {
    const twoOfThree: Condition = { kind: 'sustained', of: 'webhook.p99', op: '>', value: 1, m: 2, n: 3 };

    it('is met when m of the last n samples pass, showing the peak', () => {
      expect(evaluate(twoOfThree, { 'webhook.p99': '0 5 0 3' }).evidence).toEqual([
        {
          what: 'webhook.p99',
          over: '2 of last 3 samples, needs 2',
          observed: 5,
          op: '>',
          threshold: 1,
          unit: 'seconds',
          passed: true,
          condition: { kind: 'sustained', of: 'webhook.p99' },
        },
      ]);
    });

    it('shows the lowest passing sample as the peak of a < comparison', () => {
      const condition: Condition = { kind: 'sustained', of: 'webhook.p99', op: '<', value: 1, m: 2, n: 3 };

      expect(evaluate(condition, { 'webhook.p99': '0.5 0.2 3' }).evidence[0]?.observed).toBe(0.2);
    });

    it('is unmet when too few samples pass, showing the latest sample', () => {
      const result = evaluate(twoOfThree, { 'webhook.p99': '5 0 0.5' });

      expect([result.verdict, result.evidence[0]?.observed, result.evidence[0]?.passed]).toEqual(['unmet', 0.5, false]);
    });

    it('is unknown when the missing samples could still make up m', () => {
      expect(verdictOf(twoOfThree, { 'webhook.p99': '5 _ 0' })).toBe('unknown');
    });

    it('is unmet when even the missing samples could not make up m', () => {
      expect(verdictOf(twoOfThree, { 'webhook.p99': '0 _ 0' })).toBe('unmet');
    });

    it('is met despite a gap when enough present samples pass', () => {
      expect(verdictOf(twoOfThree, { 'webhook.p99': '5 _ 5' })).toBe('met');
    });

    it('treats samples before the history starts as missing', () => {
      expect(verdictOf(twoOfThree, { 'webhook.p99': '5' })).toBe('unknown');
    });

    describe('across a gap', () => {
      const threeOfThree: Condition = { kind: 'sustained', of: 'webhook.p99', op: '>', value: 1, m: 3, n: 3 };

      it('counts a gap of two samples between passing ones as passing, and says so', () => {
        const result = evaluate(threeOfThree, { 'webhook.p99': '2 _ _ 5' });

        expect([result.verdict, result.evidence[0]?.over]).toEqual([
          'met',
          '3 of last 3 samples, needs 3; 2 missing, read as passing like the samples on both sides of the gap',
        ]);
      });

      it('reads the sample before the window to close a gap at its start', () => {
        expect(verdictOf(threeOfThree, { 'webhook.p99': '3 _ 4 5' })).toBe('met');
      });

      it('leaves a gap between failing samples undecided: a gap never starts a rule clearing', () => {
        const oneOfThree: Condition = { ...threeOfThree, m: 1 };

        expect(verdictOf(oneOfThree, { 'webhook.p99': '0 0 _ 0' })).toBe('unknown');
      });

      it('leaves a gap between a passing and a failing sample undecided', () => {
        expect(verdictOf(threeOfThree, { 'webhook.p99': '0 _ 5 5' })).toBe('unknown');
      });

      it('leaves a gap of three samples undecided, however its sides agree', () => {
        expect(verdictOf({ ...threeOfThree, n: 5 }, { 'webhook.p99': '5 _ _ _ 5' })).toBe('unknown');
      });

      it('leaves the newest samples missing undecided: nothing after them closes the gap', () => {
        expect(verdictOf(threeOfThree, { 'webhook.p99': '5 5 5 _' })).toBe('unknown');
      });
    });
  });

  describe('window', () => {
    const windowOver = (
      aggregate: 'sum' | 'avg' | 'max' | 'min' | 'count',
      op: '>' | '>=' | '<' | '<=',
      value: number,
      window = '3m',
    ): Condition => ({ kind: 'window', of: 'nodes.replaced', aggregate, window, op, value });

    it('sums the samples of the window', () => {
      const result = evaluate(windowOver('sum', '>=', 6), { 'nodes.replaced': '9 1 2 3' });

      expect(result).toEqual({
        verdict: 'met',
        evidence: [
          {
            what: 'nodes.replaced',
            over: 'sum over 3m',
            observed: 6,
            op: '>=',
            threshold: 6,
            unit: 'count',
            passed: true,
            condition: { kind: 'window', of: 'nodes.replaced' },
          },
        ],
        lacking: [],
      });
    });

    it('is unmet when a complete window falls short', () => {
      expect(verdictOf(windowOver('sum', '>=', 6), { 'nodes.replaced': '1 1 1' })).toBe('unmet');
    });

    it('is met with gaps when the sum already passes', () => {
      expect(verdictOf(windowOver('sum', '>=', 6), { 'nodes.replaced': '4 _ 3' })).toBe('met');
    });

    it('is unknown with gaps when the sum does not pass yet', () => {
      expect(verdictOf(windowOver('sum', '>=', 6), { 'nodes.replaced': '1 _ 2' })).toBe('unknown');
    });

    it('is unknown with gaps when a sum below a ceiling could still rise above it', () => {
      expect(verdictOf(windowOver('sum', '<', 5), { 'nodes.replaced': '1 _ 1' })).toBe('unknown');
    });

    it('is unmet with gaps when a sum already exceeds a ceiling', () => {
      expect(verdictOf(windowOver('sum', '<', 5), { 'nodes.replaced': '4 _ 3' })).toBe('unmet');
    });

    it('is unknown when every sample of the window is missing', () => {
      expect(evaluate(windowOver('sum', '>=', 0), { 'nodes.replaced': '5 _*3' })).toEqual({
        verdict: 'unknown',
        evidence: [],
        lacking: [],
      });
    });

    describe('average of a share read with a confidence', () => {
      const averageShare = (value: number): Condition => ({
        kind: 'window',
        of: { ratio: ['apiserver.5xx', 'apiserver.requests'], minDenominator: 50, confidence: 0.95 },
        aggregate: 'avg',
        window: '3m',
        op: '>=',
        value,
      });

      it('pools the counts of the window, so that a busy minute weighs more than a quiet one', () => {
        // 500 of 1,200 requests failed: 42 %, where the average of the three minutes' shares is 17 %.
        const result = evaluate(averageShare(0.35), {
          'apiserver.5xx': '500 0 0',
          'apiserver.requests': '1000 100 100',
        });

        expect([result.verdict, result.evidence[0]?.over]).toEqual([
          'met',
          'avg over 3m, counts pooled, at its 95 % lower bound',
        ]);
      });

      it('reads the pooled share at its lower bound, so that a few hundred requests need more errors', () => {
        // 45 of 300 is 15 %, and as little as 11 % at 95 % confidence.
        expect(
          verdictOf(averageShare(0.12), { 'apiserver.5xx': '15 15 15', 'apiserver.requests': '100 100 100' }),
        ).toBe('unmet');
      });

      it('is unknown when fewer than half of the window is present', () => {
        expect(verdictOf(averageShare(0.1), { 'apiserver.5xx': '_ _ 90', 'apiserver.requests': '_ _ 100' })).toBe(
          'unknown',
        );
      });
    });

    it('counts the samples of the window that pass where, as a count', () => {
      const condition: Condition = {
        kind: 'window',
        of: 'nodes.replaced',
        aggregate: 'count',
        window: '5m',
        where: { op: '>', value: 2 },
        op: '>=',
        value: 3,
      };
      const result = evaluate(condition, { 'nodes.replaced': '0 3 0 4 5' });

      expect([
        result.verdict,
        result.evidence[0]?.observed,
        result.evidence[0]?.over,
        result.evidence[0]?.unit,
      ]).toEqual(['met', 3, 'count over 5m with nodes.replaced > 2', 'count']);
    });

    it('counts present samples when count has no where', () => {
      expect(evaluate(windowOver('count', '>=', 2), { 'nodes.replaced': '7 _ 7' }).evidence[0]?.observed).toBe(2);
    });

    const bigRepairsAtMost = (value: number): Condition => ({
      kind: 'window',
      of: 'nodes.replaced',
      aggregate: 'count',
      window: '6m',
      where: { op: '>', value: 2 },
      op: '<=',
      value,
    });

    it('is met with gaps when a count under a ceiling stays under it however the gaps fill', () => {
      expect(verdictOf(bigRepairsAtMost(3), { 'nodes.replaced': '5 0 _ 0 5 0' })).toBe('met');
    });

    it('is unknown with gaps when the gaps could push a count over its ceiling', () => {
      expect(verdictOf(bigRepairsAtMost(2), { 'nodes.replaced': '5 0 _ 0 5 0' })).toBe('unknown');
    });

    it('is unmet with gaps when even every gap passing could not make a count', () => {
      expect(verdictOf(windowOver('count', '>=', 5), { 'nodes.replaced': '7 _ 7' })).toBe('unmet');
    });

    it('takes the largest sample for max', () => {
      expect(evaluate(windowOver('max', '>=', 9), { 'nodes.replaced': '1 9 2' }).verdict).toBe('met');
    });

    it('is met with gaps when the max already passes', () => {
      expect(verdictOf(windowOver('max', '>', 5), { 'nodes.replaced': '9 _ 1' })).toBe('met');
    });

    it('is unknown with gaps when the max does not pass yet', () => {
      expect(verdictOf(windowOver('max', '>', 5), { 'nodes.replaced': '1 _ 2' })).toBe('unknown');
    });

    it('takes the smallest sample for min', () => {
      expect(evaluate(windowOver('min', '<=', 1), { 'nodes.replaced': '3 1 5' }).evidence[0]?.observed).toBe(1);
    });

    it('is met with gaps when the min already fell below a ceiling', () => {
      expect(verdictOf(windowOver('min', '<', 2), { 'nodes.replaced': '1 _ 5' })).toBe('met');
    });

    it('is unknown with gaps when the min above a floor could still fall', () => {
      expect(verdictOf(windowOver('min', '>=', 3), { 'nodes.replaced': '3 _ 4' })).toBe('unknown');
    });

    it('averages the samples of the window', () => {
      expect(evaluate(windowOver('avg', '>=', 2), { 'nodes.replaced': '1 2 3' }).evidence[0]?.observed).toBe(2);
    });

    it('is unknown for an average over less than half of the window', () => {
      expect(verdictOf(windowOver('avg', '>=', 2), { 'nodes.replaced': '_ _ 4' })).toBe('unknown');
    });

    it('trusts an average over exactly half of the window', () => {
      expect(verdictOf(windowOver('avg', '>=', 2, '4m'), { 'nodes.replaced': '_ _ 4 4' })).toBe('met');
    });

    it('decides an average against a floor with half of the window missing', () => {
      expect(verdictOf(windowOver('avg', '>=', 5, '4m'), { 'nodes.replaced': '_ 4 _ 4' })).toBe('unmet');
    });

    it('counts separate runs of passing samples as episodes', () => {
      const condition: Condition = {
        kind: 'window',
        of: 'webhook.failures',
        aggregate: 'episodes',
        window: '8m',
        where: { op: '>=', value: 1 },
        op: '>=',
        value: 3,
      };
      const result = evaluate(condition, { 'webhook.failures': '0 1 1 0 1 0 0 1' });

      expect([result.verdict, result.evidence[0]?.observed, result.evidence[0]?.unit]).toEqual(['met', 3, 'count']);
    });

    it('is unknown for episodes over less than half of the window', () => {
      const condition: Condition = {
        kind: 'window',
        of: 'webhook.failures',
        aggregate: 'episodes',
        window: '4m',
        where: { op: '>=', value: 1 },
        op: '>=',
        value: 1,
      };

      expect(verdictOf(condition, { 'webhook.failures': '_ _ _ 1' })).toBe('unknown');
    });

    describe('episodes with gaps', () => {
      const bursts = (value: number): Condition => ({
        kind: 'window',
        of: 'webhook.failures',
        aggregate: 'episodes',
        window: '8m',
        where: { op: '>=', value: 1 },
        op: '>=',
        value,
      });

      it('is unknown while the newest minutes missing could hold the burst that makes the count', () => {
        // Two bursts seen; the two missing minutes could hold a third.
        expect(verdictOf(bursts(3), { 'webhook.failures': '1 0 0 1 0 0 _ _' })).toBe('unknown');
      });

      it('is unknown while a missing minute could join two bursts into one', () => {
        expect(verdictOf(bursts(3), { 'webhook.failures': '0 1 _ 1 0 0 1 0' })).toBe('unknown');
      });

      it('decides when no way of filling the gaps changes the answer', () => {
        expect([
          verdictOf(bursts(3), { 'webhook.failures': '1 0 1 0 1 0 _ 0' }),
          verdictOf(bursts(5), { 'webhook.failures': '1 0 0 1 0 0 _ _' }),
        ]).toEqual(['met', 'unmet']);
      });
    });

    it('converts the window to samples of the window step', () => {
      const condition = windowOver('sum', '>=', 2, '10m');

      expect(
        evaluateCondition(condition, windowOf({ 'nodes.replaced': '1 1 1' }, { stepSeconds: 300 }), {}).evidence[0]
          ?.observed,
      ).toBe(2);
    });

    it('compares where with a $param', () => {
      const condition: Condition = {
        kind: 'window',
        of: 'nodes.replaced',
        aggregate: 'count',
        window: '3m',
        where: { op: '>=', value: '$big' },
        op: '>=',
        value: 1,
      };

      expect(evaluate(condition, { 'nodes.replaced': '1 5 1' }, { big: 5 }).evidence[0]?.over).toBe(
        'count over 3m with nodes.replaced >= 5',
      );
    });
  });

  describe('change', () => {
    const change = (mode: 'ratio' | 'delta', value: number): ChangeCondition => ({
      kind: 'change',
      of: 'nodes.replaced',
      aggregate: 'avg',
      window: '2m',
      baseline: '6m',
      mode,
      op: '>=',
      value,
    });

    it('divides the recent aggregate by the baseline just before it, in times', () => {
      expect(evaluate(change('ratio', 3), { 'nodes.replaced': '1*6 3*2' }).evidence).toEqual([
        {
          what: 'nodes.replaced',
          over: 'avg over 2m vs the 6m before (ratio)',
          observed: 3,
          op: '>=',
          threshold: 3,
          unit: 'x',
          passed: true,
          condition: { kind: 'change', of: 'nodes.replaced' },
        },
      ]);
    });

    it('subtracts the baseline in delta mode, in the unit of the signal', () => {
      const result = evaluate(change('delta', 2), { 'nodes.replaced': '1*6 3*2' });

      expect([result.verdict, result.evidence[0]?.observed, result.evidence[0]?.unit]).toEqual(['met', 2, 'count']);
    });

    it('is unmet when the recent window rose too little', () => {
      expect(verdictOf(change('ratio', 3), { 'nodes.replaced': '1*6 2*2' })).toBe('unmet');
    });

    it('reads a rise over a zero baseline as none before and the count now, never as an infinite ratio', () => {
      expect(evaluate(change('ratio', 3), { 'nodes.replaced': '0*6 2*2' })).toEqual({
        verdict: 'met',
        evidence: [
          {
            what: 'nodes.replaced',
            over: 'none in the 6m before, 4 in the last 2m',
            observed: 4,
            op: '>',
            threshold: 0,
            unit: 'count',
            passed: true,
            condition: { kind: 'change', of: 'nodes.replaced' },
          },
        ],
        lacking: [],
      });
    });

    it('names the aggregate of a gauge that rose from zero', () => {
      const gauge: ChangeCondition = { ...change('ratio', 3), of: 'nodes.notready', aggregate: 'max' };

      expect(evaluate(gauge, { 'nodes.notready': '0*6 1 5' }).evidence[0]?.over).toBe(
        'none in the 6m before, 5 (max) in the last 2m',
      );
    });

    it('decides once the baseline holds twice the recent window, though most of the baseline is before the history', () => {
      const long: ChangeCondition = { ...change('ratio', 3), baseline: '60m' };

      expect(verdictOf(long, { 'nodes.replaced': '0*4 2*2' })).toBe('met');
    });

    it('waits while the baseline holds less than twice the recent window and less than half of itself', () => {
      const long: ChangeCondition = { ...change('ratio', 3), baseline: '60m' };

      expect(verdictOf(long, { 'nodes.replaced': '0*3 2*2' })).toBe('unknown');
    });

    it('reads zero over a zero baseline as no change', () => {
      const result = evaluate(change('ratio', 3), { 'nodes.replaced': '0*8' });

      expect([result.verdict, result.evidence[0]?.observed]).toEqual(['unmet', 1]);
    });

    it('is unknown when the baseline is mostly missing', () => {
      expect(verdictOf(change('ratio', 3), { 'nodes.replaced': '_*4 1*2 3*2' })).toBe('unknown');
    });

    it('is unknown when the recent window is missing', () => {
      expect(verdictOf(change('ratio', 3), { 'nodes.replaced': '1*6 _*2' })).toBe('unknown');
    });
  });

  describe('absent', () => {
    const dark: Condition = { kind: 'absent', of: ['apiserver.requests', 'apiserver.write.p99'], window: '10m' };

    it('is met when no signal has a datapoint in the window', () => {
      expect(evaluate(dark, { 'apiserver.requests': '100 _*10', 'apiserver.write.p99': '0.2 _*10' })).toEqual({
        verdict: 'met',
        evidence: [
          {
            what: 'datapoints of apiserver.requests, apiserver.write.p99',
            over: 'last 10m',
            observed: 0,
            op: '<=',
            threshold: 0,
            unit: 'count',
            passed: true,
            condition: { kind: 'absent', of: ['apiserver.requests', 'apiserver.write.p99'] },
          },
        ],
        lacking: [],
      });
    });

    it('is unmet while one signal still has a datapoint, counting it', () => {
      const result = evaluate(dark, { 'apiserver.requests': '_*10', 'apiserver.write.p99': '_*5 0.2 _*4' });

      expect([result.verdict, result.evidence[0]?.observed, result.evidence[0]?.passed]).toEqual(['unmet', 1, false]);
    });

    it('judges the signals the cluster provides, naming the one it lacks', () => {
      expect(evaluate(dark, { 'apiserver.requests': '_*10' })).toEqual({
        verdict: 'met',
        evidence: [
          {
            what: 'datapoints of apiserver.requests',
            over: 'last 10m',
            observed: 0,
            op: '<=',
            threshold: 0,
            unit: 'count',
            passed: true,
            condition: { kind: 'absent', of: ['apiserver.requests', 'apiserver.write.p99'] },
          },
        ],
        lacking: ['apiserver.write.p99'],
      });
    });

    it('is skipped when the cluster provides none of the signals', () => {
      expect(evaluate(dark, { 'webhook.p99': '_*10' })).toEqual({
        verdict: 'skipped',
        evidence: [],
        lacking: ['apiserver.requests', 'apiserver.write.p99'],
      });
    });
  });

  describe('change per another operand', () => {
    const errorsPerRejection = (op: '>=' | '<=', value: number): ChangeCondition => ({
      kind: 'change',
      of: 'apiserver.5xx',
      per: 'webhook.rejections',
      aggregate: 'avg',
      window: '2m',
      baseline: '6m',
      mode: 'delta',
      op,
      value,
    });

    it('divides the rise of its operand by the rise of the other, over the same windows', () => {
      expect(
        evaluate(errorsPerRejection('>=', 0.5), { 'apiserver.5xx': '100*6 140*2', 'webhook.rejections': '5*6 45*2' })
          .evidence,
      ).toEqual([
        {
          what: 'apiserver.5xx',
          over: 'avg over 2m vs the 6m before, per rise of webhook.rejections',
          observed: 1,
          op: '>=',
          threshold: 0.5,
          unit: 'x',
          passed: true,
          condition: { kind: 'change', of: 'apiserver.5xx' },
        },
      ]);
    });

    it('is unmet when the operand stays flat while the other rises: denials, not calls failing closed', () => {
      expect(
        verdictOf(errorsPerRejection('>=', 0.5), { 'apiserver.5xx': '100*8', 'webhook.rejections': '5*6 45*2' }),
      ).toBe('unmet');
    });

    it('is unmet under a ceiling when the operand rises far more than the other: errors of their own', () => {
      expect(
        verdictOf(errorsPerRejection('<=', 2), { 'apiserver.5xx': '100*6 900*2', 'webhook.rejections': '5*6 12*2' }),
      ).toBe('unmet');
    });

    it('is unknown while the other has not risen to twice its baseline', () => {
      expect(
        verdictOf(errorsPerRejection('>=', 0.5), { 'apiserver.5xx': '100*6 140*2', 'webhook.rejections': '30*6 45*2' }),
      ).toBe('unknown');
    });

    it('is skipped, naming it, when the cluster lacks the other operand', () => {
      expect(evaluate(errorsPerRejection('>=', 0.5), { 'apiserver.5xx': '100*8' })).toEqual({
        verdict: 'skipped',
        evidence: [],
        lacking: ['webhook.rejections'],
      });
    });
  });

  describe('allOf, anyOf and noneOf', () => {
    const p99: SignalsInput = { 'webhook.p99': '3' };
    const met = p99Above(1);
    const unmet = p99Above(5);
    const unknown: Condition = { kind: 'threshold', of: 'nodes.total', op: '>', value: 1 };
    const skipped: Condition = { kind: 'threshold', of: 'apiserver.429', op: '>', value: 1 };
    const signals: SignalsInput = { ...p99, 'nodes.total': '_' };

    it('allOf is met when every condition is met, with all their evidence', () => {
      const result = evaluate({ kind: 'allOf', conditions: [met, p99Above(2)] }, signals);

      expect([result.verdict, result.evidence.map((e) => e.threshold)]).toEqual(['met', [1, 2]]);
    });

    it('allOf is unmet when one condition is unmet, even next to an unknown one, showing the shortfall', () => {
      const result = evaluate({ kind: 'allOf', conditions: [met, unknown, unmet] }, signals);

      expect([result.verdict, result.evidence.map((e) => e.threshold)]).toEqual(['unmet', [5]]);
    });

    it('allOf is unknown when nothing is unmet but something is unknown', () => {
      expect(verdictOf({ kind: 'allOf', conditions: [met, unknown] }, signals)).toBe('unknown');
    });

    it('allOf is skipped, naming the signal, when a condition needs a signal the cluster lacks', () => {
      expect(evaluate({ kind: 'allOf', conditions: [unmet, skipped] }, signals)).toEqual({
        verdict: 'skipped',
        evidence: [],
        lacking: ['apiserver.429'],
      });
    });

    it('anyOf is met when one condition is met, ignoring a skipped branch but naming what it lacks', () => {
      const result = evaluate({ kind: 'anyOf', conditions: [skipped, unmet, met] }, signals);

      expect([result.verdict, result.evidence.map((e) => e.threshold), result.lacking]).toEqual([
        'met',
        [1],
        ['apiserver.429'],
      ]);
    });

    it('anyOf is unmet when every evaluated condition is unmet, ignoring a skipped branch', () => {
      expect(verdictOf({ kind: 'anyOf', conditions: [skipped, unmet] }, signals)).toBe('unmet');
    });

    it('anyOf is unknown when nothing is met and something is unknown', () => {
      expect(verdictOf({ kind: 'anyOf', conditions: [unmet, unknown] }, signals)).toBe('unknown');
    });

    it('anyOf is skipped when every branch is skipped', () => {
      expect(evaluate({ kind: 'anyOf', conditions: [skipped] }, signals)).toEqual({
        verdict: 'skipped',
        evidence: [],
        lacking: ['apiserver.429'],
      });
    });

    it('noneOf is met when no condition is met, with no evidence', () => {
      expect(evaluate({ kind: 'noneOf', conditions: [unmet] }, signals)).toEqual({
        verdict: 'met',
        evidence: [],
        lacking: [],
      });
    });

    it('noneOf is unmet when a condition is met, showing what was seen', () => {
      const result = evaluate({ kind: 'noneOf', conditions: [unmet, met] }, signals);

      expect([result.verdict, result.evidence.map((e) => e.threshold)]).toEqual(['unmet', [1]]);
    });

    it('noneOf counts an unknown condition as not seen', () => {
      expect(verdictOf({ kind: 'noneOf', conditions: [unknown] }, signals)).toBe('met');
    });

    it('noneOf counts a skipped condition as not seen', () => {
      expect(verdictOf({ kind: 'noneOf', conditions: [skipped] }, signals)).toBe('met');
    });

    it('allOf with a noneOf over missing signals still decides on what it has', () => {
      const condition: Condition = { kind: 'allOf', conditions: [met, { kind: 'noneOf', conditions: [skipped] }] };

      expect(verdictOf(condition, signals)).toBe('met');
    });

    it('noneOf names the signals of the branches it could not look at', () => {
      expect(evaluate({ kind: 'noneOf', conditions: [unmet, skipped] }, signals).lacking).toEqual(['apiserver.429']);
    });

    it('allOf passes up what a partly covered child lacks, and still decides', () => {
      const partly: Condition = { kind: 'anyOf', conditions: [met, skipped] };
      const result = evaluate({ kind: 'allOf', conditions: [partly, p99Above(2)] }, signals);

      expect([result.verdict, result.lacking]).toEqual(['met', ['apiserver.429']]);
    });

    it('reports partial coverage of an unmet combination too, so a quiet cluster shows what it cannot see', () => {
      const partly: Condition = { kind: 'anyOf', conditions: [unmet, skipped] };

      expect(evaluate({ kind: 'allOf', conditions: [partly, met] }, signals)).toEqual({
        verdict: 'unmet',
        evidence: [expect.objectContaining({ threshold: 5 })],
        lacking: ['apiserver.429'],
      });
    });

    it('shows a comparison two met branches share once', () => {
      const shared: Condition = { kind: 'allOf', conditions: [met, p99Above(2)] };
      const result = evaluate({ kind: 'anyOf', conditions: [shared, { kind: 'allOf', conditions: [met] }] }, signals);

      expect(result.evidence.map((e) => e.threshold)).toEqual([1, 2]);
    });

    it('names each lacking signal once, however many branches lack it', () => {
      const twice: Condition = { kind: 'anyOf', conditions: [skipped, { kind: 'noneOf', conditions: [skipped] }, met] };

      expect(evaluate(twice, signals).lacking).toEqual(['apiserver.429']);
    });
  });
});
