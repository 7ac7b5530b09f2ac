import { metricsPerPoll } from '../shared/pipeline/query-plan.ts';
import { fleetClusters, fleetPlan } from '../support/fleet-generator.ts';

/** Datapoints one GetMetricData read of one cluster could return: what the datapoints-per-second quota counts. */
export interface ReadSizes {
  /** Before minute reads were narrowed: every read, armed or quiet, took every metric over the longest window. */
  readonly before: number;
  /** A cluster armed between its slow-cadence reads: the minute read, each signal over its short window. */
  readonly armed: number;
  /** A quiet cluster on the slow cadence, and every cluster's full read: every metric over the longest window. */
  readonly quiet: number;
  readonly metrics: { readonly full: number; readonly minute: number };
  readonly samples: { readonly full: number; readonly minute: number };
}

/** The read sizes of the benchmark fleet's cluster (the example configuration's production cluster, 18 metrics). */
export function measureReadSizes(): ReadSizes {
  const plan = fleetPlan(1);
  const clusters = fleetClusters(1);
  const rules = plan.ruleSet.signals();
  const full = metricsPerPoll(clusters, rules);
  const minuteSignals = [...plan.minuteRead.signals].filter(([signal]) => rules.has(signal));
  const armed = minuteSignals.reduce(
    (sum, [signal, samples]) => sum + metricsPerPoll(clusters, new Set([signal])) * samples,
    0,
  );
  const minute = metricsPerPoll(clusters, new Set(minuteSignals.map(([signal]) => signal)));
  return {
    before: full * plan.lookback,
    armed,
    quiet: full * plan.lookback,
    metrics: { full, minute },
    samples: { full: plan.lookback, minute: plan.minuteRead.lookback },
  };
}
