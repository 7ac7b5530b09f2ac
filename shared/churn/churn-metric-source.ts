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
    this.counted = new Set(clusters.filter(countsNodeChurn).map((c) => c.name));
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
          let series: Partial<Record<SignalName, Sample[]>>;
          try {
            const terminations = await this.reader.terminations(cluster, start, request.end + stepMs);
            series = churnSeries(terminations, this.signals, start, stepMs, request.samples);
          } catch (error) {
            series = Object.fromEntries(this.signals.map((s) => [s, new Array<Sample>(request.samples).fill(null)]));
            unreadable.push({
              clusters: [cluster],
              error: `node churn: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
            });
          }
          const window = windows.get(cluster);
          if (window) windows.set(cluster, new WindowWithSeries(window, series, request.samples - 1));
        }),
      );
    }
    return { ...reading, windows, unreadable };
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
