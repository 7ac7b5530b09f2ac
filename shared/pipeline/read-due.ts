import { CHURN_SIGNALS } from '../churn/node-termination.ts';
import type { SignalWindow } from '../engine/signal-window.ts';
import { SIGNAL_NAMES, type SignalName } from '../engine/signals.ts';
import type { ClusterObservation, ClusterSignals } from '../engine/step.ts';
import { blindTripwires } from './blind-tripwires.ts';
import type { DueReads } from './cadence.ts';
import type { MetricReading, MetricSource } from './ports.ts';
import type { WatchPlan } from './watch-plan.ts';

/**
 * A step's due clusters read and ready for the engine, with what the reads cost and missed: their signals when read
 * here, what the shard workers evaluated when fanned out.
 */
export interface ObservedReads<Observation extends ClusterObservation = ClusterObservation> {
  /** One per cluster read: a minute read evaluates only the rules its short windows serve. */
  readonly observations: readonly Observation[];
  readonly metricsRequested: number;
  readonly unreadable: MetricReading['unreadable'];
  /** Clusters whose newest sample is there: what the heartbeat counts as a poll that saw something. */
  readonly freshClusters: number;
  readonly blindTripwires: readonly string[];
}

/** Read the due clusters of a step into observations: the poller and a shard worker do it alike. */
export async function observeDue(
  deps: { readonly plan: WatchPlan; readonly metrics: MetricSource },
  due: DueReads,
  at: number,
  armed: ReadonlySet<string>,
): Promise<ObservedReads<ClusterSignals>> {
  const reading = await readDue(deps, due, at);
  const minute = new Set(due.minute);
  return {
    observations: deps.plan.clusters.flatMap((cluster) => {
      const window = reading.windows.get(cluster.name);
      if (!window) return [];
      return [
        {
          cluster: cluster.name,
          window,
          rules: cluster.rules,
          ...(minute.has(cluster.name) && { evaluated: cluster.minuteRules }),
        },
      ];
    }),
    metricsRequested: reading.metricsRequested,
    unreadable: reading.unreadable,
    freshClusters: [...reading.windows.values()].filter(hasSampleAtStep).length,
    blindTripwires: blindTripwires(armed, reading.windows, deps.plan.cadence.tripwire),
  };
}

/**
 * The full reads and the minute reads of a step, side by side: the metric source paces both against the same quota,
 * and their windows are one reading. The poller and a shard worker read the same way.
 */
async function readDue(
  deps: { readonly plan: WatchPlan; readonly metrics: MetricSource },
  due: DueReads,
  at: number,
): Promise<MetricReading> {
  const { plan } = deps;
  const common = { end: at, stepSeconds: plan.stepSeconds };
  const [full, minute] = await Promise.all([
    due.full.length > 0 ? deps.metrics.read({ ...common, clusters: due.full, samples: plan.lookback }) : undefined,
    due.minute.length > 0
      ? deps.metrics.read({
          ...common,
          clusters: due.minute,
          samples: plan.minuteRead.lookback,
          signals: plan.minuteRead.signals,
        })
      : undefined,
  ]);
  const readings = [full, minute].filter((r) => r !== undefined);
  return {
    windows: new Map(readings.flatMap((r) => [...r.windows])),
    metricsRequested: readings.reduce((n, r) => n + r.metricsRequested, 0),
    unreadable: readings.flatMap((r) => r.unreadable),
  };
}

/**
 * Signals whose sample at the step says the source had data then. Node churn is counted from events into the table,
 * and reads 0 at every step without a termination whether or not the cluster's metrics arrived: it is no sign that
 * they did.
 */
const MEASURED_SIGNALS = SIGNAL_NAMES.filter((signal) => !(CHURN_SIGNALS as readonly SignalName[]).includes(signal));

/** Whether any measured signal of the window has its newest sample, the one at the evaluated step. */
function hasSampleAtStep(window: SignalWindow): boolean {
  return MEASURED_SIGNALS.some((signal) => window.has(signal) && window.sample(signal, 0) !== null);
}
