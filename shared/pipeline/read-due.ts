import { CHURN_SIGNALS } from '../churn/node-termination.ts';
import type { SignalWindow } from '../engine/signal-window.ts';
import { SIGNAL_NAMES, type SignalName } from '../engine/signals.ts';
import type { DueReads } from './cadence.ts';
import type { MetricReading, MetricSource } from './ports.ts';
import type { WatchPlan } from './watch-plan.ts';

/**
 * The full reads and the minute reads of a step, side by side: the metric source paces both against the same quota,
 * and their windows are one reading. The poller and a shard worker read the same way.
 */
export async function readDue(
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
export function hasSampleAtStep(window: SignalWindow): boolean {
  return MEASURED_SIGNALS.some((signal) => window.has(signal) && window.sample(signal, 0) !== null);
}
