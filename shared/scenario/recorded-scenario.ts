import type { Series, SeriesBySignal } from '../engine/signal-window.ts';
import type { Sample } from '../engine/signals.ts';
import { isoSeconds } from '../time.ts';
import { formatCompactSeries } from './compact-series.ts';
import { SCENARIO_FORMAT, type Scenario } from './scenario.ts';

export interface Recording {
  readonly name: string;
  readonly description: string;
  readonly start: number;
  readonly stepSeconds: number;
  readonly clusters: ReadonlyMap<string, SeriesBySignal>;
}

/** History fetched from CloudWatch as a scenario, so that a backtest replays it exactly as a scenario file. */
/** A recorded series as scenario arrays: NaN (missing in a Float64Array) becomes null. */
function asSamples(series: Series | undefined): Sample[] {
  return Array.from(series ?? [], (value) => (value === null || Number.isNaN(value) ? null : value));
}

export function recordedScenario(recording: Recording): Scenario {
  const steps = Math.max(
    0,
    ...[...recording.clusters.values()].flatMap((s) => Object.values(s).map((v) => v?.length ?? 0)),
  );
  return {
    file: recording.name,
    name: recording.name,
    description: recording.description,
    start: recording.start,
    stepSeconds: recording.stepSeconds,
    steps,
    clusters: new Map(
      [...recording.clusters].map(([cluster, series]) => [
        cluster,
        Object.fromEntries(Object.entries(series).map(([signal, samples]) => [signal, asSamples(samples)])),
      ]),
    ),
    maintenance: [],
    expect: [],
  };
}

/** A scenario file (format v1) for review and the regression corpus; `expect` is left for the reviewer to write. */
export function scenarioFileOf(recording: Recording): object {
  return {
    format: SCENARIO_FORMAT,
    name: recording.name,
    description: recording.description,
    start: isoSeconds(recording.start),
    stepSeconds: recording.stepSeconds,
    clusters: Object.fromEntries(
      [...recording.clusters].map(([cluster, series]) => [
        cluster,
        {
          signals: Object.fromEntries(
            Object.entries(series).map(([signal, samples]) => [signal, formatCompactSeries(samples ?? [])]),
          ),
        },
      ]),
    ),
    maintenance: [],
    expect: [],
  };
}
