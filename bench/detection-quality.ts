import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { readScenarioFile } from '../io/input-files.ts';
import type { RuleSet } from '../shared/engine/rule-set.ts';
import { replayScenario } from '../shared/scenario/replay.ts';
import type { Scenario } from '../shared/scenario/scenario.ts';
import {
  type AlarmSettings,
  baselineAlarms,
  type ClusterBaseline,
  evaluateBaseline,
  LIBRARY_DEFAULT_SETTINGS,
  SPECIFIED_SETTINGS,
} from './alarm-baseline.ts';
import { median } from './statistics.ts';

const MINUTE_MS = 60_000;

/** How the CloudWatch-alarm baseline saw one incident. */
export interface BaselineDetection {
  readonly latencyMin: number | null;
  readonly notifications: number;
}

/** One incident of the corpus: a cluster where the scenario expects a page, or an expectation with an onset. */
export interface IncidentFigures {
  readonly scenario: string;
  readonly cluster: string;
  readonly level: 'page' | 'ticket';
  readonly rule?: string;
  readonly onset?: string;
  readonly detected: boolean;
  /** First matching notification minus onset, in minutes of sample time; null without an onset or a match. */
  readonly latencyMin: number | null;
  /** Page notifications naming this cluster (one grouped page naming three clusters counts once for each). */
  readonly pages: number;
  /**
   * The onset lies inside a maintenance window the scenario declares for the cluster. There the promise is a page
   * within 15 minutes for a severe outage (docs/rules.md), not 3, and the alarm baseline, which knows no windows and
   * pages every expected blip in them too, is no yardstick.
   */
  readonly inMaintenance: boolean;
  /** Page-level incidents only: the baseline with the settings, and with the library's default period. */
  readonly baseline?: { readonly specified: BaselineDetection; readonly libraryDefault: BaselineDetection };
}

export interface ScenarioFigures {
  readonly file: string;
  readonly clusters: number;
  readonly steps: number;
  /** Cluster-steps actually read under the cadence (slow, tripwire, paging), as a share of all cluster-steps. */
  readonly polledShare: number;
  readonly pages: number;
  /** Pages naming no cluster that the scenario expects a page for. */
  readonly falsePages: number;
  readonly notifications: number;
  readonly baseline: {
    readonly specified: BaselineTotals;
    readonly libraryDefault: BaselineTotals;
  };
}

export interface BaselineTotals {
  /** Composite-alarm transitions to ALARM: notifications on-call receives. */
  readonly notifications: number;
  /** Of those, on clusters the scenario expects no page for. */
  readonly falseNotifications: number;
  /** If every metric alarm were subscribed instead of the composite. */
  readonly metricAlarmNotifications: number;
}

export interface DetectionQuality {
  readonly scenarios: readonly ScenarioFigures[];
  readonly incidents: readonly IncidentFigures[];
  readonly alarms: ReturnType<typeof baselineAlarms>;
  readonly settings: { readonly specified: AlarmSettings; readonly libraryDefault: AlarmSettings };
  readonly totals: {
    readonly pageIncidents: number;
    readonly detected: number;
    readonly recall: number;
    readonly precision: number;
    readonly pages: number;
    readonly falsePages: number;
    /** Page notifications per page-level incident, worst case. */
    readonly maxPagesPerIncident: number;
    readonly minPagesPerIncident: number;
    /** Outside maintenance windows, where the promise is 3 minutes. */
    readonly medianLatencyMin: number;
    readonly worstLatencyMin: number;
    /** Page-level incidents whose onset is inside a declared maintenance window, and their worst latency. */
    readonly inMaintenanceIncidents: number;
    readonly worstInMaintenanceLatencyMin: number;
    readonly baseline: {
      readonly specified: BaselineSummary;
      readonly libraryDefault: BaselineSummary;
    };
  };
}

export interface BaselineSummary extends BaselineTotals {
  readonly detected: number;
  readonly medianLatencyMin: number;
  readonly worstLatencyMin: number;
  /** Ours over the baseline: the issue asks for at most 0.5 on latency and at most 1 on notifications. */
  readonly latencyRatio: number;
  /** Page-level incidents on which this pipeline paged later than the baseline, or not at all while it did. */
  readonly laterThanBaseline: readonly string[];
  readonly notificationRatio: number;
}

/** The scenario corpus, in file order, each with its file name. */
export type Corpus = readonly { readonly name: string; readonly scenario: Scenario }[];

export async function loadCorpus(scenarioDir: string): Promise<Corpus> {
  const files = readdirSync(scenarioDir)
    .filter((f) => f.endsWith('.json'))
    .sort();
  return Promise.all(files.map(async (name) => ({ name, scenario: readScenarioFile(path.join(scenarioDir, name)) })));
}

/** Replay every scenario of the corpus through the poll path, and evaluate the alarm baseline on the same data. */
export async function measureDetectionQuality(ruleSet: RuleSet, corpus: Corpus): Promise<DetectionQuality> {
  const alarms = baselineAlarms(ruleSet);
  const scenarios: ScenarioFigures[] = [];
  const incidents: IncidentFigures[] = [];
  for (const { name, scenario } of corpus) {
    const result = await replayScenario(scenario, { ruleSet });
    const baseline = {
      specified: evaluateBaseline(scenario, alarms, SPECIFIED_SETTINGS),
      libraryDefault: evaluateBaseline(scenario, alarms, LIBRARY_DEFAULT_SETTINGS),
    };
    const paging = pagingClusters(scenario);
    const pages = result.notifications.filter((n) => n.kind === 'page');
    const polled = result.activity.polls.reduce((n, p) => n + p.polled, 0);
    scenarios.push({
      file: name,
      clusters: scenario.clusters.size,
      steps: scenario.steps,
      polledShare: polled / (scenario.steps * scenario.clusters.size),
      pages: pages.length,
      falsePages: pages.filter((p) => !p.clusters.some((c) => paging.has(c))).length,
      notifications: result.notifications.length,
      baseline: {
        specified: baselineTotals(baseline.specified, paging),
        libraryDefault: baselineTotals(baseline.libraryDefault, paging),
      },
    });
    const stepOf = (time: number) => Math.round((time - scenario.start) / (scenario.stepSeconds * 1000));
    for (const cluster of paging) {
      const check = result.checks.find(
        (c) => c.expectation.cluster === cluster && c.expectation.kind === 'page' && c.expectation.onset !== undefined,
      );
      const onset = check?.expectation.onset;
      const detect = (clusters: readonly ClusterBaseline[]): BaselineDetection => {
        const mine = clusters.find((c) => c.cluster === cluster);
        const from = onset === undefined ? -1 : stepOf(onset);
        const first =
          onset === undefined ? -1 : (mine?.inAlarm.findIndex((alarm, minute) => alarm && minute >= from) ?? -1);
        return { latencyMin: first < 0 ? null : first - from, notifications: mine?.compositeAlarms.length ?? 0 };
      };
      const ourPages = pages.filter((p) => p.clusters.includes(cluster));
      incidents.push({
        scenario: name,
        cluster,
        level: 'page',
        ...(check?.expectation.rule !== undefined && { rule: check.expectation.rule }),
        ...(onset !== undefined && { onset: new Date(onset).toISOString() }),
        detected: ourPages.length > 0,
        latencyMin: check?.latencyMs === undefined ? null : check.latencyMs / MINUTE_MS,
        pages: ourPages.length,
        inMaintenance: onset !== undefined && inWindow(scenario, cluster, onset),
        baseline: { specified: detect(baseline.specified), libraryDefault: detect(baseline.libraryDefault) },
      });
    }
    for (const check of result.checks) {
      const { expectation } = check;
      if (expectation.onset === undefined || expectation.kind === 'page') continue;
      incidents.push({
        scenario: name,
        cluster: expectation.cluster,
        level: 'ticket',
        ...(expectation.rule !== undefined && { rule: expectation.rule }),
        onset: new Date(expectation.onset).toISOString(),
        detected: check.passed,
        latencyMin: check.latencyMs === undefined ? null : check.latencyMs / MINUTE_MS,
        pages: 0,
        inMaintenance: inWindow(scenario, expectation.cluster, expectation.onset),
      });
    }
  }
  return {
    scenarios,
    incidents,
    alarms,
    settings: { specified: SPECIFIED_SETTINGS, libraryDefault: LIBRARY_DEFAULT_SETTINGS },
    totals: totals(scenarios, incidents),
  };
}

function inWindow(scenario: Scenario, cluster: string, at: number): boolean {
  return scenario.maintenance.some((w) => w.cluster === cluster && w.from <= at && at < w.to);
}

/**
 * The clusters a scenario expects a page for: a page expectation with an onset, or one that counts at least one.
 * Every other cluster of the scenario expects none, so any page there is false.
 */
export function pagingClusters(scenario: Scenario): Set<string> {
  return new Set(
    scenario.expect
      .filter((e) => e.kind === 'page' && (e.onset !== undefined || (e.count ?? 0) > 0))
      .map((e) => e.cluster),
  );
}

function baselineTotals(clusters: readonly ClusterBaseline[], paging: ReadonlySet<string>): BaselineTotals {
  return {
    notifications: clusters.reduce((n, c) => n + c.compositeAlarms.length, 0),
    falseNotifications: clusters
      .filter((c) => !paging.has(c.cluster))
      .reduce((n, c) => n + c.compositeAlarms.length, 0),
    metricAlarmNotifications: clusters.reduce((n, c) => n + c.metricAlarmNotifications, 0),
  };
}

function totals(
  scenarios: readonly ScenarioFigures[],
  incidents: readonly IncidentFigures[],
): DetectionQuality['totals'] {
  const allPaged = incidents.filter((i) => i.level === 'page');
  const paged = allPaged.filter((i) => !i.inMaintenance);
  const latencies = paged.flatMap((i) => (i.latencyMin === null ? [] : [i.latencyMin]));
  const inWindowLatencies = allPaged
    .filter((i) => i.inMaintenance)
    .map((i) => i.latencyMin ?? Number.POSITIVE_INFINITY);
  const pages = scenarios.reduce((n, s) => n + s.pages, 0);
  const falsePages = scenarios.reduce((n, s) => n + s.falsePages, 0);
  const medianLatencyMin = median(latencies);
  const summary = (variant: 'specified' | 'libraryDefault'): BaselineSummary => {
    const theirs = paged.flatMap((i) => {
      const latency = i.baseline?.[variant].latencyMin;
      return latency === null || latency === undefined ? [] : [latency];
    });
    const sum = (key: keyof BaselineTotals) => scenarios.reduce((n, s) => n + s.baseline[variant][key], 0);
    const baselineMedian = median(theirs);
    return {
      notifications: sum('notifications'),
      falseNotifications: sum('falseNotifications'),
      metricAlarmNotifications: sum('metricAlarmNotifications'),
      detected: paged.filter((i) => (i.baseline?.[variant].notifications ?? 0) > 0).length,
      medianLatencyMin: baselineMedian,
      worstLatencyMin: Math.max(...theirs),
      latencyRatio: medianLatencyMin / baselineMedian,
      laterThanBaseline: paged
        .filter((i) => {
          const theirsAt = i.baseline?.[variant].latencyMin;
          if (theirsAt === null || theirsAt === undefined) return false;
          return i.latencyMin === null ? !i.detected || i.onset !== undefined : i.latencyMin > theirsAt;
        })
        .map((i) => `${i.scenario} ${i.cluster}`),
      notificationRatio: pages / sum('notifications'),
    };
  };
  return {
    pageIncidents: allPaged.length,
    detected: allPaged.filter((i) => i.detected).length,
    recall: allPaged.filter((i) => i.detected).length / allPaged.length,
    precision: pages === 0 ? 1 : (pages - falsePages) / pages,
    pages,
    falsePages,
    maxPagesPerIncident: Math.max(...allPaged.map((i) => i.pages)),
    minPagesPerIncident: Math.min(...allPaged.map((i) => i.pages)),
    medianLatencyMin,
    worstLatencyMin: Math.max(...latencies),
    inMaintenanceIncidents: inWindowLatencies.length,
    worstInMaintenanceLatencyMin: Math.max(0, ...inWindowLatencies),
    baseline: { specified: summary('specified'), libraryDefault: summary('libraryDefault') },
  };
}
