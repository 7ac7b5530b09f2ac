import type { GraphSettings } from '../notify/graph-link.ts';
import { DAY_MS, isoSeconds, MINUTE_MS } from '../time.ts';
import { composeNotification, markShown } from './compose-notification.ts';
import { type HandResolution, markResolvedByHand, splitResolvedByHand } from './hand-resolution.ts';
import type { ClusterFacts } from './hint-scope.ts';
import type { Incident } from './incident.ts';
import { clusterMuted, type Mute } from './maintenance.ts';
import type { Labels } from './matchers.ts';
import type { ClusterWhere, Notification } from './notification.ts';
import type { ClusterRule, RuleSet } from './rule-set.ts';
import type { SignalWindow } from './signal-window.ts';
import { type Change, correlate } from './stages/correlate.ts';
import { needsUpdate } from './stages/dedup.ts';
import { type ClusterReading, evaluateCluster, type Finding } from './stages/evaluate.ts';
import { type GroupingSettings, groupIncidents } from './stages/group.ts';
import { advanceLifecycle } from './stages/lifecycle.ts';
import { muteStage } from './stages/mute.ts';

export type { ClusterReading, Finding } from './stages/evaluate.ts';
export type { GroupingSettings } from './stages/group.ts';

/** What the engine knows about one cluster at one step: its signals, or what a shard already evaluated of them. */
export type ClusterObservation = ClusterSignals | EvaluatedCluster;

/** A cluster's signals as read at this step, evaluated by the step itself. */
export interface ClusterSignals {
  readonly cluster: string;
  readonly window: SignalWindow;
  /** The cluster's rules as configured. */
  readonly rules: readonly ClusterRule[];
  /**
   * The rules this read covers (a minute read's short-window rules); all of `rules` without it. An incident that only
   * rules left out could move is left as it is until a read covers them.
   */
  readonly evaluated?: readonly ClusterRule[];
}

/**
 * A cluster whose signals a shard worker read and evaluated (`evaluateObservation`, muted as the step would find it), so that the
 * step that joins the shards runs the stages after `evaluate` as one process would.
 */
export interface EvaluatedCluster {
  readonly cluster: string;
  readonly rules: readonly ClusterRule[];
  readonly reading: ClusterReading;
}

/** The evaluate stage of a step on one cluster: what a shard worker runs, and `step` for a cluster it was given read. */
export function evaluateObservation(observation: ClusterSignals, muted: boolean): ClusterReading {
  const { cluster, window, rules } = observation;
  return evaluateCluster(cluster, window, observation.evaluated ?? rules, muted);
}

export interface EngineSettings {
  /** How long an open page waits before it is re-sent as a reminder (Alertmanager's `repeat_interval`). */
  readonly renotifyMs: number;
  /** Prefix of runbook links; a rule's runbook path is appended. */
  readonly runbookBaseUrl: string;
  /** Where each cluster's metrics are, for the console graph every notification links to. */
  readonly graph?: GraphSettings;
  /** How clusters that fire the same rule become one fleet incident. */
  readonly grouping: GroupingSettings;
}

export interface StepInput {
  readonly at: number;
  readonly ruleSet: RuleSet;
  /** The clusters read at this step. */
  readonly clusters: readonly ClusterObservation[];
  /** The open incidents of the whole fleet, as the store holds them, whether their clusters were read or not. */
  readonly incidents: readonly Incident[];
  /** What holds notifications back: maintenance windows and the silences stored at run time. */
  readonly mutes: readonly Mute[];
  readonly settings: EngineSettings;
  /**
   * What the configuration says about each cluster, read or not, to fill in and choose its pages' hints; a cluster
   * it does not name is unknown.
   */
  readonly facts?: ReadonlyMap<string, ClusterFacts>;
  /** Fleet incidents resolved by hand (`sentinel incidents resolve`); their incidents send nothing more. */
  readonly resolvedByHand?: readonly HandResolution[];
  /** Each cluster's labels, which silences' matchers read; a cluster it does not name has only its name. */
  readonly labels?: ReadonlyMap<string, Labels>;
}

export interface StepOutput {
  /** Every incident this step opened, changed or resolved, in its new state. */
  readonly changed: readonly Incident[];
  /** Open incidents after the step, of the whole fleet (changed or not). */
  readonly open: readonly Incident[];
  readonly notifications: readonly Notification[];
  readonly findings: readonly Finding[];
}

/**
 * One evaluation step, as a pipeline of small stages over plain values (after Alertmanager's notify pipeline):
 * evaluate each cluster read; per cluster, correlate findings into incidents and move them through their lifecycle;
 * across the fleet, group incidents into fleet incidents; then for each fleet incident, mute what a mute holds back
 * and dedup what on-call already knows, and compose what is left. Each stage has one reason to hold a notification
 * back (see shared/engine/stages/). Pure: the same input always gives the same output, which is what lets a retried
 * or overlapping poll produce identical, de-duplicable notifications.
 */
export function step(input: StepInput): StepOutput {
  const { ruleSet, settings } = input;
  const at = isoSeconds(input.at);
  const stored = new Map(input.incidents.filter((i) => i.status === 'open').map((i) => [i.id, i]));
  const current = new Map(stored);
  for (const incident of markResolvedByHand(stored, input.resolvedByHand ?? [])) current.set(incident.id, incident);
  // Each cluster's incidents, found by cluster rather than by a pass over the fleet's for each cluster read: in a
  // fleet-wide outage that pass made the step quadratic in the fleet (ten thousand clusters, 10^8 comparisons).
  const idsByCluster = new Map<string, string[]>();
  for (const incident of current.values()) clusterIds(idsByCluster, incident.cluster).push(incident.id);
  const readings = new Map<string, ClusterReading>();
  const changes = new Map<string, Change>();
  const regroup = new Set<string>();

  for (const observation of input.clusters) {
    const { cluster, rules } = observation;
    const reading =
      'reading' in observation
        ? observation.reading
        : evaluateObservation(observation, clusterMuted(input.mutes, cluster, input.at, input.labels?.get(cluster)));
    readings.set(cluster, reading);
    const correlated = correlate({
      at: input.at,
      cluster,
      ruleSet,
      rules,
      firing: reading.findings.filter((f) => f.verdict === 'met'),
      open: (idsByCluster.get(cluster) ?? []).flatMap((id) => current.get(id) ?? []),
    });
    for (const incident of advanceLifecycle({
      at: input.at,
      incidents: correlated.incidents,
      findings: reading.findings,
      rules,
    })) {
      if (!current.has(incident.id)) clusterIds(idsByCluster, incident.cluster).push(incident.id);
      current.set(incident.id, incident);
    }
    for (const [id, change] of correlated.changes) changes.set(id, change);
    for (const id of correlated.regroup) regroup.add(id);
  }

  const grouped = groupIncidents({
    at: input.at,
    incidents: [...current.values()],
    regroup,
    settings: settings.grouping,
    perRegion: (rule) => ruleSet.get(rule)?.perRegion !== undefined,
  });
  for (const incident of grouped.incidents) current.set(incident.id, incident);

  const notifications: Notification[] = [];
  for (const whole of grouped.groups) {
    // What was resolved by hand sends nothing more: its resolve went out when the operator gave it.
    const { rest: group } = splitResolvedByHand(whole);
    if (!group) continue;
    for (const incident of group.members) current.set(incident.id, incident);
    const muted = muteStage({
      at: input.at,
      mutes: input.mutes,
      group,
      policyOf: (rule) => ruleSet.get(rule)?.maintenance,
      readings,
      ...(input.labels && { labels: input.labels }),
    });
    for (const incident of muted.group.members) current.set(incident.id, incident);
    const decision = needsUpdate({
      at: input.at,
      group: muted.group,
      verdicts: muted.verdicts,
      changes,
      settings: { ...settings.grouping, renotifyMs: settings.renotifyMs },
    });
    if (!decision.send) continue;
    notifications.push(
      composeNotification({
        at,
        kind: decision.kind,
        reason: decision.reason,
        rule: group.rule,
        about: decision.about,
        group: group.id,
        changes: decision.changes,
        ruleSet,
        runbookBaseUrl: settings.runbookBaseUrl,
        ...(settings.graph && { graph: settings.graph }),
        factsOf: (cluster) => input.facts?.get(cluster),
        whereOf: (cluster) => whereOf(input.labels?.get(cluster), settings.graph?.region),
        regionOf: (cluster) => settings.grouping.regionOf?.get(cluster),
      }),
    );
    for (const incident of decision.about)
      current.set(incident.id, markShown(incident, at, decision.kind, decision.reason));
  }

  const all = [...current.values()];
  return {
    changed: all.filter((i) => changedSince(i, stored.get(i.id), input.at)),
    open: all.filter((i) => i.status === 'open'),
    notifications,
    findings: [...readings.values()].flatMap((r) => r.findings),
  };
}

/**
 * Where a cluster runs, from its `account` and `region` labels; a cluster whose Region nothing names is in the Region
 * the poller runs in (`region`), as the graph links read it.
 */
function whereOf(labels: Labels | undefined, region: string | undefined): ClusterWhere {
  return {
    ...(labels?.account && { account: labels.account }),
    ...((labels?.region || region) && { region: labels?.region || region }),
  };
}

function clusterIds(byCluster: Map<string, string[]>, cluster: string): string[] {
  const ids = byCluster.get(cluster) ?? [];
  byCluster.set(cluster, ids);
  return ids;
}

/**
 * Whether a step changed an incident, and so must write it. The stages rebuild every incident they pass through, so
 * an incident that is only carried along is compared by content: a fleet-wide outage holds an open incident per
 * cluster for its whole length, and writing all of them every minute when nothing about them moved would make each
 * step's writes grow with the fleet. An open incident that does not change is still written once a day, at a minute
 * its id picks (spread over the day), so that its stored item never reaches its expiry while it is open.
 */
function changedSince(incident: Incident, stored: Incident | undefined, at: number): boolean {
  if (!stored || !sameValue(incident, stored)) return true;
  return Math.floor((at % DAY_MS) / MINUTE_MS) === keepAliveMinute(incident.id);
}

/** The minute of the day at which an unchanged open incident is written again: a hash of its id. */
function keepAliveMinute(id: string): number {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) >>> 0;
  return hash % (DAY_MS / MINUTE_MS);
}

/** Equality of plain data (what an incident holds): the same keys with the same values, in any order. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysOf = (value: object) =>
    Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  const keys = keysOf(a);
  if (keys.length !== keysOf(b).length) return false;
  return keys.every((key) => sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}
