import { withoutSilentSignals } from '../../aws/cloudwatch/metric-source.ts';

const series = (...values: number[]) => Float64Array.from(values);

describe('withoutSilentSignals', () => {
  it('leaves out a signal with no datapoint in the whole look-back, so that rules treat it as absent', () => {
    const kept = withoutSilentSignals({
      'apiserver.5xx': series(3, Number.NaN, 4),
      'apiserver.429': series(Number.NaN, Number.NaN, Number.NaN),
    });

    expect(Object.keys(kept)).toEqual(['apiserver.5xx']);
  });

  it('keeps a signal with a gap: one datapoint is enough to be published', () => {
    const kept = withoutSilentSignals({ 'webhook.p99': series(Number.NaN, 0.05, Number.NaN) });

    expect(Object.keys(kept)).toEqual(['webhook.p99']);
  });

  it('keeps every signal of a cluster that has gone dark, for signals-missing to see', () => {
    const dark = {
      'apiserver.requests': series(Number.NaN, Number.NaN),
      'apiserver.write.p99': series(Number.NaN, Number.NaN),
    };

    expect(Object.keys(withoutSilentSignals(dark))).toEqual(['apiserver.requests', 'apiserver.write.p99']);
  });
});
