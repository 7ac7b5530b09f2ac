import type { ClusterFacts } from '../engine/hint-scope.ts';
import type { Mute } from '../engine/maintenance.ts';
import type { Labels } from '../engine/matchers.ts';
import type { ClusterRule, RuleSet } from '../engine/rule-set.ts';
import type { SignalName } from '../engine/signals.ts';
import type { EngineSettings } from '../engine/step.ts';
import type { TripwireSettings } from './tripwire-alarm.ts';

export interface WatchedCluster {
  readonly name: string;
  readonly rules: readonly ClusterRule[];
  /**
   * What a minute read between two slow-cadence reads evaluates: the page-level rules, and the rules whose windows
   * are no longer than theirs.
   */
  readonly minuteRules: readonly ClusterRule[];
  /** What the configuration says about the cluster, for its pages' hints; absent for a cluster it does not name. */
  readonly facts?: ClusterFacts;
  /** Its labels, those the pipeline gives it included (shared/config/cluster-labels.ts), for silences' matchers. */
  readonly labels: Labels;
}

/** Everything a poll needs to know about what it watches, built once from the configuration (or a scenario). */
export interface WatchPlan {
  readonly ruleSet: RuleSet;
  readonly clusters: readonly WatchedCluster[];
  /** The maintenance windows, as mutes; silences stored at run time join them at each poll (poll.ts). */
  readonly mutes: readonly Mute[];
  readonly stepSeconds: number;
  /** Samples of history a full read takes: the longest window any rule looks at. */
  readonly lookback: number;
  /**
   * What a minute read takes, for a cluster a tripwire armed or a page holds on the one-minute cadence between its
   * slow-cadence reads: only the signals of the minute rules (and the tripwire's, so that a blind tripwire still
   * shows), each over the longest window that reads it, and `lookback` the longest of those. Long windows (tickets
   * over hours, baselines) wait for the cluster's next full read.
   */
  readonly minuteRead: { readonly lookback: number; readonly signals: ReadonlyMap<SignalName, number> };
  readonly settings: EngineSettings;
  /** How close to a threshold counts as a near miss, as a share of it. */
  readonly nearMissMargin: number;
  /**
   * A quiet cluster is read every `everySteps` steps; an armed or paging one every step. Without `tripwire` no alarm
   * arms a cluster.
   */
  readonly cadence: { readonly everySteps: number; readonly tripwire?: TripwireSettings };
}
