import { CompactSeriesError, formatCompactSeries, parseCompactSeries } from '../../shared/scenario/compact-series.ts';

function errorOf(text: string): CompactSeriesError {
  try {
    parseCompactSeries(text);
  } catch (error) {
    if (error instanceof CompactSeriesError) return error;
    throw error;
  }
  throw new Error(`"${text}" parsed without an error`);
}

describe('parseCompactSeries', () => {
  it('reads a single value as one sample', () => {
    expect(parseCompactSeries('0.25')).toEqual([0.25]);
  });

  it('repeats V*N as N samples of V', () => {
    expect(parseCompactSeries('3*4')).toEqual([3, 3, 3, 3]);
  });

  it('draws A..B*N as a straight line with both ends included', () => {
    expect(parseCompactSeries('0..12*4')).toEqual([0, 4, 8, 12]);
  });

  it('draws a falling ramp from A down to B', () => {
    expect(parseCompactSeries('30..25*6')).toEqual([30, 29, 28, 27, 26, 25]);
  });

  it('rounds ramp samples so that 0.1..0.3*3 gives exactly 0.2 in the middle', () => {
    expect(parseCompactSeries('0.1..0.3*3')).toEqual([0.1, 0.2, 0.3]);
  });

  it('reads _ as one missing sample', () => {
    expect(parseCompactSeries('_')).toEqual([null]);
  });

  it('reads _*N as N missing samples', () => {
    expect(parseCompactSeries('_*3')).toEqual([null, null, null]);
  });

  it('reads negative numbers and exponents', () => {
    expect(parseCompactSeries('-1.5e2 1e-3 -2*2 2E1')).toEqual([-150, 0.001, -2, -2, 20]);
  });

  it('reads numbers written with a leading or trailing decimal point', () => {
    expect(parseCompactSeries('.5 1.')).toEqual([0.5, 1]);
  });

  it('concatenates segments in order, whatever the whitespace between them', () => {
    expect(parseCompactSeries('  1*2\t_ \n 0..2*3 ')).toEqual([1, 1, null, 0, 1, 2]);
  });

  it('rejects an empty series', () => {
    expect(errorOf('').message).toBe('the series is empty: expected at least one segment');
  });

  it('rejects a series of only whitespace as empty', () => {
    expect(errorOf('   ').message).toMatch(/the series is empty/);
  });

  it('rejects a count of zero and names the segment', () => {
    expect(errorOf('1*3 2*0').message).toBe('segment 2 "2*0": the count after * must be at least 1');
  });

  it('rejects _*0 and names the segment', () => {
    expect(errorOf('_*0').message).toBe('segment 1 "_*0": the count after * must be at least 1');
  });

  it('rejects a ramp without a count and names the segment', () => {
    expect(errorOf('1..2').message).toBe('segment 1 "1..2": a ramp A..B needs *N with N >= 2');
  });

  it('rejects a ramp of a single sample and names the segment', () => {
    expect(errorOf('0 1..2*1').message).toBe('segment 2 "1..2*1": a ramp A..B needs *N with N >= 2');
  });

  it('rejects garbage and names the segment and the accepted forms', () => {
    expect(errorOf('1 2 abc').message).toBe(
      'segment 3 "abc": expected V, V*N, A..B*N, _ or _*N (V, A, B numbers; N a whole count)',
    );
  });

  it('rejects comma-separated values as one malformed segment', () => {
    expect(errorOf('1,2').message).toMatch(/^segment 1 "1,2": expected V, V\*N/);
  });

  it('rejects a fractional count', () => {
    expect(errorOf('1*2.5').message).toMatch(/^segment 1 "1\*2\.5": expected/);
  });

  it('rejects a ramp to a missing sample', () => {
    expect(errorOf('1.._*3').message).toMatch(/^segment 1 "1\.\._\*3": expected/);
  });

  it('rejects a series longer than a million samples instead of running out of memory', () => {
    expect(errorOf('1*999999999999').message).toMatch(
      /^segment 1 "1\*999999999999": the series would exceed 1000000 samples/,
    );
  });

  it('rejects a value too large to be a number', () => {
    expect(errorOf('1 1e999').message).toBe('segment 2 "1e999": the value is too large to be a number');
  });
});

describe('formatCompactSeries', () => {
  it('writes runs as V*N and gaps as _ so that parsing gives the samples back', () => {
    const samples = [0.2, 0.2, 0.2, null, null, 12, 3.5, 3.5];

    expect([formatCompactSeries(samples), parseCompactSeries(formatCompactSeries(samples))]).toEqual([
      '0.2*3 _*2 12 3.5*2',
      samples,
    ]);
  });
});
