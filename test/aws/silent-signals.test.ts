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

  it('judges each signal over the span it was read: old datapoints of an hour-long read are not the cluster speaking now', () => {
    // CloudWatch has shown nothing for the last three minutes: the rejections, read over six samples, still hold
    // datapoints from before; the write p99, read over the newest three, has none, and is missing, not unpublished.
    const blind = {
      'webhook.rejections': series(70, 72, 71, Number.NaN, Number.NaN, Number.NaN),
      'apiserver.write.p99': series(Number.NaN, Number.NaN, Number.NaN, Number.NaN, Number.NaN, Number.NaN),
    };
    const samplesOf = (signal: string) => (signal === 'webhook.rejections' ? 6 : 3);

    expect(Object.keys(withoutSilentSignals(blind, samplesOf))).toEqual(['webhook.rejections', 'apiserver.write.p99']);
    // Without the spans, the old rejections would make the write p99 look unpublished.
    expect(Object.keys(withoutSilentSignals(blind))).toEqual(['webhook.rejections']);
  });

  it('still leaves out a short-read signal that is silent while the others speak in its span', () => {
    const kept = withoutSilentSignals(
      {
        'apiserver.requests': series(Number.NaN, Number.NaN, Number.NaN, 900, 910, 905),
        'webhook.p99': series(Number.NaN, Number.NaN, Number.NaN, Number.NaN, Number.NaN, Number.NaN),
      },
      () => 3,
    );

    expect(Object.keys(kept)).toEqual(['apiserver.requests']);
  });
});
