import type { Sample } from '../engine/signals.ts';

const NUMBER = '-?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?';
const SEGMENT = new RegExp(`^(?:(_)|(${NUMBER})(?:\\.\\.(${NUMBER}))?)(?:\\*(\\d+))?$`);

/** A bound on one series, so that a typo such as `1*999999999999` is an error, not an out-of-memory crash. */
export const MAX_SAMPLES = 1_000_000;

/** A compact series that does not parse: which segment, and what was expected there. */
export class CompactSeriesError extends Error {}

/**
 * Expands the compact series notation of scenario format v1: `V`, `V*N`, `A..B*N` (a straight line, both ends
 * included) and `_` / `_*N` (missing samples), separated by spaces.
 */
export function parseCompactSeries(text: string): Sample[] {
  const samples: Sample[] = [];
  const segments = text.trim().split(/\s+/).filter(Boolean);
  if (segments.length === 0) throw new CompactSeriesError('the series is empty: expected at least one segment');
  segments.forEach((segment, index) => {
    const match = SEGMENT.exec(segment);
    const where = `segment ${index + 1} "${segment}"`;
    if (!match) {
      throw new CompactSeriesError(`${where}: expected V, V*N, A..B*N, _ or _*N (V, A, B numbers; N a whole count)`);
    }
    const [, gap, from, to, times] = match;
    if (!Number.isFinite(Number(from ?? 0)) || !Number.isFinite(Number(to ?? 0))) {
      throw new CompactSeriesError(`${where}: the value is too large to be a number`);
    }
    const count = times === undefined ? 1 : Number(times);
    if (samples.length + count > MAX_SAMPLES) {
      throw new CompactSeriesError(
        `${where}: the series would exceed ${MAX_SAMPLES} samples (about 2 years of minutes)`,
      );
    }
    if (count < 1) throw new CompactSeriesError(`${where}: the count after * must be at least 1`);
    if (gap) {
      for (let i = 0; i < count; i++) samples.push(null);
    } else if (to !== undefined) {
      if (count < 2) throw new CompactSeriesError(`${where}: a ramp A..B needs *N with N >= 2`);
      const a = Number(from);
      const b = Number(to);
      for (let i = 0; i < count; i++) samples.push(round(a + ((b - a) * i) / (count - 1)));
    } else {
      for (let i = 0; i < count; i++) samples.push(Number(from));
    }
  });
  return samples;
}

/** Ramps are rounded to 1e-9 so that 0.1..0.3*3 gives 0.2, not 0.19999999999999998. */
function round(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}

/** The compact notation for a series: runs of one value as `V*N`, gaps as `_`/`_*N` (no ramps, which would round). */
export function formatCompactSeries(samples: ArrayLike<Sample>): string {
  const at = (i: number) => {
    const value = samples[i];
    return value === undefined || value === null || Number.isNaN(value) ? null : value;
  };
  const segments: string[] = [];
  for (let i = 0; i < samples.length; ) {
    const value = at(i);
    let run = 1;
    while (i + run < samples.length && at(i + run) === value) run++;
    const written = value === null ? '_' : String(value);
    segments.push(run === 1 ? written : `${written}*${run}`);
    i += run;
  }
  return segments.join(' ');
}
