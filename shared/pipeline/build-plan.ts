import { clusterFacts } from '../config/cluster-facts.ts';
import { displayNameOf } from '../config/cluster-identity.ts';
import { clusterLabels, groupKey, type LabelledCluster, type Labels } from '../config/cluster-labels.ts';
import {
  type ClusterConfig,
  clusterSchema,
  type DeploymentConfig,
  type GroupingConfig,
  groupingSchema,
  pollSchema,
} from '../config/deployment-config.ts';
import { clusterSources } from '../config/metric-catalogue.ts';
import { durationMs } from '../engine/duration.ts';
import { type MaintenanceWindow, windowMute } from '../engine/maintenance.ts';
import type { Rule, RuleOverrides } from '../engine/rule.ts';
import type { ClusterRule, RuleSet } from '../engine/rule-set.ts';
import type { GroupingSettings } from '../engine/step.ts';
import type { GraphSettings } from '../notify/graph-link.ts';
import { BLIND_AFTER_STEPS } from './blind-tripwires.ts';
import { TRIPWIRE_METRICS } from './tripwire-alarm.ts';
import type { WatchPlan } from './watch-plan.ts';

export interface PlanInput {
  readonly ruleSet: RuleSet;
  readonly config?: Pick<
    DeploymentConfig,
    'notifications' | 'rules' | 'clusters' | 'digest' | 'poll' | 'grouping' | 'ops'
  >;
  /** The clusters to watch; those the configuration names get their own overrides. */
  readonly clusters: readonly string[];
  readonly maintenance: readonly MaintenanceWindow[];
  /** Who declared the windows that name no author: the configuration, or a scenario. */
  readonly maintenanceDeclaredBy?: string;
  readonly stepSeconds: number;
  /** The Region the poller runs in, whose console the graph links open; `ops.region` when the configuration says. */
  readonly region?: string;
  /** A scenario's grouping, for a replay without a configuration (a configuration's own grouping wins). */
  readonly grouping?: GroupingConfig;
  /** A scenario's labels of the clusters the configuration does not name. */
  readonly labels?: ReadonlyMap<string, Labels>;
  /** A scenario's Regions of the clusters the configuration does not name. */
  readonly regions?: ReadonlyMap<string, string>;
}

/** Resolve each cluster's rules (fleet overrides, then the cluster's own) and the history a poll must read. */
export function buildPlan(input: PlanInput): WatchPlan {
  const fleet: RuleOverrides = input.config?.rules.overrides ?? {};
  // A scenario replayed without a configuration runs with the defaults a deployment would get.
  const poll = input.config?.poll ?? pollSchema.parse(undefined);
  const { tripwire } = poll;
  // By display name, once: a find per cluster would make the plan of a large fleet quadratic at every cold start.
  const byName = new Map(input.config?.clusters.map((c) => [displayNameOf(c), c]));
  // Clusters with the same overrides (most have none of their own) share one resolution of the rules: a plan holds
  // each rule's values once per distinct set of overrides rather than once per cluster, which took about 3.3 KB a
  // cluster, 33 MB of a 10,000-cluster poller's heap.
  const resolved = new Map<string, readonly ClusterRule[]>();
  const rulesWith = (overrides: RuleOverrides) => {
    const key = JSON.stringify(overrides);
    const rules = resolved.get(key) ?? input.ruleSet.forCluster([fleet, overrides]);
    resolved.set(key, rules);
    return rules;
  };
  const configured = input.clusters.map((name) => {
    const config = byName.get(name);
    return { name, config, rules: rulesWith(config?.overrides ?? {}) };
  });
  // A minute read covers the page-level rules' windows (and the steps a blind tripwire is judged on), and with them
  // every rule whose windows fit inside those.
  // Folded one rule at a time: a spread of every cluster's rules into Math.max overflows the stack on a large fleet.
  const pageRules = new Set<Rule>();
  for (const c of configured) for (const r of c.rules) if (r.severity === 'page') pageRules.add(r.rule);
  let shortLookback = BLIND_AFTER_STEPS;
  for (const rule of pageRules)
    shortLookback = Math.max(shortLookback, input.ruleSet.lookback(input.stepSeconds, [rule]));
  const minuteRulesOf = new Map<readonly ClusterRule[], readonly ClusterRule[]>();
  const minuteRules = (rules: readonly ClusterRule[]) => {
    const minute =
      minuteRulesOf.get(rules) ??
      rules.filter(
        (r) => r.severity === 'page' || input.ruleSet.lookback(input.stepSeconds, [r.rule]) <= shortLookback,
      );
    minuteRulesOf.set(rules, minute);
    return minute;
  };
  const clusters = configured.map(({ name, config, rules }) => ({
    name,
    rules,
    labels: clusterLabels(labelled(input, byName, name), input.config?.ops),
    minuteRules: minuteRules(rules),
    ...(config && { facts: clusterFacts(config) }),
  }));
  return {
    ruleSet: input.ruleSet,
    clusters,
    mutes: input.maintenance.map((w) => windowMute(w, input.maintenanceDeclaredBy ?? 'the deployment configuration')),
    stepSeconds: input.stepSeconds,
    lookback: input.ruleSet.lookback(input.stepSeconds),
    minuteRead: minuteRead(input.ruleSet, clusters, input.stepSeconds),
    nearMissMargin: input.config?.digest.nearMissMargin ?? 0.2,
    cadence: {
      everySteps: Math.max(1, Math.round(durationMs(poll.every) / (input.stepSeconds * 1000))),
      ...(tripwire.enabled && {
        tripwire: { writeP99Seconds: tripwire.writeP99Seconds, errorRatio: tripwire.errorRatio },
      }),
    },
    settings: {
      renotifyMs: durationMs(input.config?.notifications.renotify ?? '4h'),
      runbookBaseUrl: input.config?.notifications.runbookBaseUrl ?? '',
      graph: graphSettings(input, byName),
      grouping: groupingSettings(input, byName),
    },
  };
}

/**
 * Where the metrics of every watched cluster are, for the graph links. A cluster the configuration does not name (a
 * scenario's, replayed without one) is graphed as a deployment would read it by default: the `eks` profile.
 */
function graphSettings(input: PlanInput, byName: ReadonlyMap<string, ClusterConfig>): GraphSettings {
  const byDefault = clusterSchema.parse({ name: 'default' });
  const region = input.config?.ops.region ?? input.region;
  return {
    ...(region && { region }),
    clusters: new Map(
      input.clusters.map((name) => {
        const cluster: ClusterConfig = byName.get(name) ?? { ...byDefault, name };
        return [
          name,
          {
            ...(cluster.accountId && { accountId: cluster.accountId }),
            ...(cluster.region && { region: cluster.region }),
            sources: clusterSources(cluster),
          },
        ];
      }),
    ),
  };
}

/**
 * The minute read of the fleet: each signal the minute rules read, over its longest window in them, and the
 * tripwire's signals over at least the steps a blind tripwire is judged on.
 */
function minuteRead(
  ruleSet: RuleSet,
  clusters: readonly { readonly minuteRules: readonly ClusterRule[] }[],
  stepSeconds: number,
): WatchPlan['minuteRead'] {
  const rules = new Set<Rule>();
  for (const c of clusters) for (const r of c.minuteRules) rules.add(r.rule);
  const signals = ruleSet.signalLookbacks(stepSeconds, [...rules]);
  for (const { signal } of Object.values(TRIPWIRE_METRICS)) {
    signals.set(signal, Math.max(signals.get(signal) ?? 1, BLIND_AFTER_STEPS));
  }
  return { lookback: Math.max(1, ...signals.values()), signals };
}

/** A watched cluster as the configuration names it, or as a scenario labels it. */
function labelled(input: PlanInput, byName: ReadonlyMap<string, ClusterConfig>, name: string): LabelledCluster {
  return byName.get(name) ?? { name, labels: input.labels?.get(name) ?? {}, region: input.regions?.get(name) };
}

/**
 * The grouping block in the engine's units, with each watched cluster's group under `grouping.by`: from the
 * configuration, or from a scenario's labels and grouping where it gives them.
 */
function groupingSettings(input: PlanInput, byName: ReadonlyMap<string, ClusterConfig>): GroupingSettings {
  const grouping = input.config?.grouping ?? input.grouping ?? groupingSchema.parse({});
  const ops = input.config?.ops ?? {};
  const regionOf = new Map(
    input.clusters.flatMap((name) => {
      const { region } = clusterLabels(labelled(input, byName, name), ops);
      return region ? [[name, region] as const] : [];
    }),
  );
  return {
    waitMs: durationMs(grouping.wait),
    intervalMs: durationMs(grouping.interval),
    joinWithinMs: durationMs(grouping.joinWithin),
    ...(regionOf.size > 0 && { regionOf }),
    ...(grouping.by.length > 0 && {
      groupOf: new Map(
        input.clusters.map((name) => [name, groupKey(clusterLabels(labelled(input, byName, name), ops), grouping.by)]),
      ),
    }),
  };
}

/** Maintenance windows as the configuration declares them. */
export function configuredMaintenance(config: Pick<DeploymentConfig, 'maintenance'>): MaintenanceWindow[] {
  return config.maintenance.flatMap((w) => {
    const base = {
      from: Date.parse(w.from),
      to: Date.parse(w.to),
      reason: w.reason,
      ...(w.author !== undefined && { author: w.author }),
    };
    return w.clusters ? w.clusters.map((cluster) => ({ ...base, cluster })) : [base];
  });
}

/**
 * The plan of a deployment: every configured cluster, its maintenance windows, one-minute steps; `region` is where the
 * poller runs, for the graph links of a configuration without `ops.region`.
 */
export function configuredPlan({
  config,
  ruleSet,
  region,
}: {
  config: DeploymentConfig;
  ruleSet: RuleSet;
  region?: string;
}): WatchPlan {
  return buildPlan({
    ruleSet,
    config,
    clusters: config.clusters.map(displayNameOf),
    maintenance: configuredMaintenance(config),
    stepSeconds: 60,
    ...(region && { region }),
  });
}
