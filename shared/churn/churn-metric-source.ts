import { displayNameOf } from '../config/cluster-identity.ts';
import type { ClusterConfig } from '../config/deployment-config.ts';
import type { SignalWindow } from '../engine/signal-window.ts';
import type { Sample, SignalName } from '../engine/signals.ts';
import type { MetricReading, MetricRequest, MetricSource } from '../pipeline/ports.ts';
import type { CountedTermination, NodeChurnReader } from './node-churn.ts';
import { CHURN_SIGNALS, countsNodeChurn, signalsOf } from './node-termination.ts';

/** Clusters whose terminations are read at once: each read is one small query. */
const READS_AT_ONCE = 16;

/**
 * The cluster signals of another source, with the node churn signals (`nodes.replaced`, `nodes.interrupted`,
 * `nodes.scaledin`) counted from the terminations the node events recorded, one value per step. A step without a
 * termination is 0, not missing: the events are the whole record. A cluster whose terminations cannot be read keeps
 * its other signals and reads the churn signals as missing, which no rule resolves on; it is reported unreadable.
 */
export class NodeChurnMetricSource implements MetricSource {
  private readonly counted: ReadonlySet<string>;
  private readonly signals: readonly SignalName[];

  constructor(
    private readonly inner: MetricSource,
    private readonly reader: NodeChurnReader,
    clusters: readonly ClusterConfig[],
    /** Only these signals (those the rule set reads); every churn signal without it. */
    needed?: ReadonlySet<SignalName>,
  ) {
    this.counted = new Set(clusters.filter(countsNodeChurn).map(displayNameOf));
    this.signals = CHURN_SIGNALS.filter((signal) => !needed || needed.has(signal));
  }

  async read(request: MetricRequest): Promise<MetricReading> {
    const reading = await this.inner.read(request);
    if (this.signals.length === 0) return reading;
    const stepMs = request.stepSeconds * 1000;
    const start = request.end - (request.samples - 1) * stepMs;
    const windows = new Map(reading.windows);
    const unreadable = [...reading.unreadable];
    const clusters = [...reading.windows.keys()].filter((name) => this.counted.has(name));
    for (let i = 0; i < clusters.length; i += READS_AT_ONCE) {
      await Promise.all(
        clusters.slice(i, i + READS_AT_ONCE).map(async (cluster) => {
          const { series, error } = await readChurnSeries(this.reader, cluster, this.signals, {
            start,
            stepMs,
            samples: request.samples,
          });
          if (error) unreadable.push({ clusters: [cluster], error });
          const window = windows.get(cluster);
          if (window) windows.set(cluster, new WindowWithSeries(window, series, request.samples - 1));
        }),
      );
    }
    return { ...reading, windows, unreadable };
  }
}

/** The steps a churn series covers: `samples` steps of `stepMs` from `start`. */
export interface ChurnSteps {
  readonly start: number;
  readonly stepMs: number;
  readonly samples: number;
}

/**
 * One cluster's churn series over the steps, read from the terminations the node events recorded; when they cannot
 * be read, missing samples (which no rule resolves on) and why.
 */
export async function readChurnSeries(
  reader: NodeChurnReader,
  cluster: string,
  signals: readonly SignalName[],
  steps: ChurnSteps,
): Promise<{ series: Partial<Record<SignalName, Sample[]>>; error?: string }> {
  const { start, stepMs, samples } = steps;
  try {
    const terminations = await reader.terminations(cluster, start, start + samples * stepMs);
    return { series: churnSeries(terminations, signals, start, stepMs, samples) };
  } catch (error) {
    return {
      series: Object.fromEntries(signals.map((s) => [s, new Array<Sample>(samples).fill(null)])),
      error: `node churn: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    };
  }
}

/** Terminations counted per step, per signal; terminations outside the steps are left out. */
export function churnSeries(
  terminations: readonly CountedTermination[],
  signals: readonly SignalName[],
  start: number,
  stepMs: number,
  samples: number,
): Partial<Record<SignalName, number[]>> {
  const series = Object.fromEntries(signals.map((s) => [s, new Array<number>(samples).fill(0)])) as Partial<
    Record<SignalName, number[]>
  >;
  for (const termination of terminations) {
    const index = Math.floor((termination.at - start) / stepMs);
    if (index < 0 || index >= samples) continue;
    for (const signal of signalsOf(termination.reason)) {
      const values = series[signal];
      if (values) values[index] = (values[index] ?? 0) + 1;
    }
  }
  return series;
}

/** A window whose given signals come from `series` (newest at `end`), the rest from the window underneath. */
class WindowWithSeries implements SignalWindow {
  readonly stepSeconds: number;

  constructor(
    private readonly under: SignalWindow,
    private readonly series: Partial<Record<SignalName, readonly Sample[]>>,
    private readonly end: number,
  ) {
    this.stepSeconds = under.stepSeconds;
  }

  has(signal: SignalName): boolean {
    return this.series[signal] !== undefined || this.under.has(signal);
  }

  sample(signal: SignalName, back: number): Sample {
    const values = this.series[signal];
    if (values === undefined) return this.under.sample(signal, back);
    const index = this.end - back;
    return index < 0 ? null : (values[index] ?? null);
  }
}
