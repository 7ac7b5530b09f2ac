import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileRuleSet } from '../../shared/config/deployment-config.ts';
import type { Condition } from '../../shared/engine/condition.ts';
import { type Duration, durationMs } from '../../shared/engine/duration.ts';
import { type Incident, newIncident } from '../../shared/engine/incident.ts';
import { type Mute, windowMute } from '../../shared/engine/maintenance.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { type Rule, type RuleOverrides, ruleSchema } from '../../shared/engine/rule.ts';
import { RuleSet } from '../../shared/engine/rule-set.ts';
import { type SeriesBySignal, SeriesWindow } from '../../shared/engine/signal-window.ts';
import type { Sample, SignalName } from '../../shared/engine/signals.ts';
import { type EngineSettings, type StepOutput, step } from '../../shared/engine/step.ts';
import { parseCompactSeries } from '../../shared/scenario/compact-series.ts';
import { type ReplayResult, replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario, type Scenario } from '../../shared/scenario/scenario.ts';
import { isoSeconds } from '../../shared/time.ts';

/** The repository root, so that tests find scenarios and sources wherever jest is started from. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function repoPath(relative: string): string {
  return join(REPO_ROOT, relative);
}

/** A series as a test writes it: compact notation or an explicit array. */
export type SeriesInput = string | readonly Sample[];
export type SignalsInput = Partial<Record<SignalName, SeriesInput>>;

export function expandSeries(input: SeriesInput): readonly Sample[] {
  return typeof input === 'string' ? parseCompactSeries(input) : input;
}

export function expandSignals(signals: SignalsInput): SeriesBySignal {
  return Object.fromEntries(
    Object.entries(signals).map(([signal, series]) => [signal, expandSeries(series as SeriesInput)]),
  );
}

/** A window whose newest sample is the last one written, unless `end` says otherwise. */
export function windowOf(signals: SignalsInput, options: { end?: number; stepSeconds?: number } = {}): SeriesWindow {
  const series = expandSignals(signals);
  const longest = Math.max(0, ...Object.values(series).map((s) => s?.length ?? 0));
  return new SeriesWindow(series, options.stepSeconds ?? 60, options.end ?? longest - 1);
}

/** A valid rule with every field a test does not care about filled in; parsed, so schema defaults apply. */
export function testRule(id: string, when: Condition, fields: Record<string, unknown> = {}): Rule {
  return ruleSchema.parse({
    id,
    title: `Rule ${id} fires`,
    summary: `What ${id} means.`,
    severity: 'page',
    when,
    hints: [{ text: `Fix ${id}.`, source: 'engine fixtures' }],
    runbook: `docs/runbooks/${id}.md`,
    ...fields,
  });
}

/** A rule that fires whenever `signal` is at least 1: a series of 0s and 1s drives it step by step. */
export function flagRule(id: string, signal: SignalName, fields: Record<string, unknown> = {}): Rule {
  return testRule(id, { kind: 'threshold', of: signal, op: '>=', value: 1 }, fields);
}

export function ruleSetOf(...rules: Rule[]): RuleSet {
  return RuleSet.compile(rules, []);
}

/** The rule set the replay command uses when it is given no configuration. */
export function defaultRuleSet(): RuleSet {
  return compileRuleSet([], 'rules');
}

/** Sample 0 of every engine run in these tests. */
export const T0 = Date.parse('2024-05-06T08:00:00Z');

export function minuteMs(minute: number): number {
  return T0 + minute * 60_000;
}

export function minuteIso(minute: number): string {
  return isoSeconds(minuteMs(minute));
}

export interface EngineRunOptions {
  readonly rules: readonly Rule[];
  readonly clusters: Readonly<Record<string, SignalsInput>>;
  /** Windows in minutes from T0, `to` exclusive. */
  readonly maintenance?: readonly { readonly cluster?: string; readonly from: number; readonly to: number }[];
  readonly overrides?: readonly RuleOverrides[];
  readonly renotify?: Duration;
  /** Grouping times; unset, the configuration's defaults (no wait, 5 m interval, joins within 30 m). */
  readonly grouping?: { readonly wait?: Duration; readonly interval?: Duration; readonly joinWithin?: Duration };
  /** Which clusters are read at each minute; unset, every cluster at every minute. */
  readonly reads?: (cluster: string, minute: number) => boolean;
}

/** Engine settings as a test writes them, with the configuration's defaults for what it leaves out. */
export function engineSettings(options: Pick<EngineRunOptions, 'renotify' | 'grouping'> = {}): EngineSettings {
  return {
    renotifyMs: durationMs(options.renotify ?? '4h'),
    runbookBaseUrl: 'https://runbooks.test/',
    grouping: {
      waitMs: durationMs(options.grouping?.wait ?? '0m'),
      intervalMs: durationMs(options.grouping?.interval ?? '5m'),
      joinWithinMs: durationMs(options.grouping?.joinWithin ?? '30m'),
    },
  };
}

export interface EngineRun {
  readonly ruleSet: RuleSet;
  readonly outputs: readonly StepOutput[];
  readonly notifications: readonly Notification[];
  /** The latest state of every incident the run opened. */
  readonly incidents: readonly Incident[];
}

/**
 * Drives `step` once a minute over every sample of the series, keeping open incidents between steps as a store
 * would. Every series of one run has the same length.
 */
export function runEngine(options: EngineRunOptions): EngineRun {
  const ruleSet = RuleSet.compile(options.rules, []);
  const rules = ruleSet.forCluster(options.overrides ?? []);
  const clusters = Object.entries(options.clusters).map(([name, signals]) => ({
    name,
    series: expandSignals(signals),
  }));
  const steps = Math.max(...clusters.flatMap((c) => Object.values(c.series).map((s) => s?.length ?? 0)));
  const mutes: Mute[] = (options.maintenance ?? []).map((w) =>
    windowMute(
      {
        ...(w.cluster !== undefined && { cluster: w.cluster }),
        from: minuteMs(w.from),
        to: minuteMs(w.to),
        reason: 'test maintenance',
      },
      'engine fixtures',
    ),
  );
  const settings = engineSettings(options);
  const reads = options.reads ?? (() => true);
  const incidents = new Map<string, Incident>();
  const outputs: StepOutput[] = [];
  for (let index = 0; index < steps; index++) {
    const at = minuteMs(index);
    const output = step({
      at,
      ruleSet,
      settings,
      incidents: [...incidents.values()].filter((i) => i.status === 'open'),
      mutes,
      clusters: clusters
        .filter((c) => reads(c.name, index))
        .map((c) => ({ cluster: c.name, window: new SeriesWindow(c.series, 60, index), rules })),
    });
    for (const incident of output.changed) incidents.set(incident.id, incident);
    outputs.push(output);
  }
  return {
    ruleSet,
    outputs,
    notifications: outputs.flatMap((o) => o.notifications),
    incidents: [...incidents.values()],
  };
}

/** An open page-level incident of `rule` on `cluster`, opened at `minute`, with what a test does not care about filled in. */
export function openIncident(cluster: string, rule: string, minute: number, fields: Partial<Incident> = {}): Incident {
  return { ...newIncident(cluster, rule, 'page', minuteIso(minute)), ...fields };
}

/** An incident as it is once on-call has been paged about it at `minute`. */
export function pagedAt(incident: Incident, minute: number): Incident {
  return {
    ...incident,
    notifiedAt: incident.notifiedAt ?? minuteIso(minute),
    lastNotifiedAt: minuteIso(minute),
    paged: true,
    notifications: incident.notifications + 1,
  };
}

/** A notification with only the fields an expectation reads set to something meaningful. */
export function notificationAt(
  fields: Pick<Notification, 'at' | 'kind' | 'rule'> & Partial<Omit<Notification, 'at' | 'kind' | 'rule'>>,
): Notification {
  return {
    id: `${fields.at}/${fields.kind}/${fields.rule}/test`,
    reason: fields.kind === 'resolve' ? 'resolved' : 'opened',
    severity: 'critical',
    title: `${fields.rule} fires`,
    summary: '',
    clusters: ['dev-a'],
    incidents: [`dev-a/${fields.rule}/${fields.at}`],
    openedAt: fields.at,
    symptoms: [],
    changes: [],
    causalChain: [],
    evidence: [],
    hints: [],
    runbook: '',
    ...fields,
  };
}

/** The smallest valid scenario file, as parsed JSON; tests spread their changes over it. */
export function scenarioJson(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    format: 'sentinel.scenario/v1',
    name: 'fixture',
    start: '2019-03-04T09:00:00Z',
    clusters: { 'dev-euw1': { signals: { 'webhook.p99': '0.1*10' } } },
    ...fields,
  };
}

/** Replays one cluster's signals, written as a scenario would write them, with the default rules and cadence. */
export function replaySignals(signals: Record<string, string>, cluster = 'dev-a'): Promise<ReplayResult> {
  const scenario = parseScenario(scenarioJson({ clusters: { [cluster]: { signals } } }), `${cluster}.json`);
  return replayScenario(scenario, { ruleSet: defaultRuleSet() });
}

/** A cluster that reports only write latency, requests and 5xx: no 429, no webhooks, no nodes. */
export const ERRORS_ONLY_SIGNALS = {
  'apiserver.write.p99': '0.2*5',
  'apiserver.requests': '900*5',
  'apiserver.5xx': '1*5',
} as const;

export function scenarioFile(name: string): string {
  return repoPath(`scenarios/${name}.json`);
}

export function loadScenario(name: string): Scenario {
  return parseScenario(JSON.parse(readFileSync(scenarioFile(name), 'utf8')), `scenarios/${name}.json`);
}

/** Replays each shipped scenario at most once per test file: the week-long one takes seconds. */
const replays = new Map<string, Promise<ReplayResult>>();

export function replayShipped(name: string): Promise<ReplayResult> {
  let replay = replays.get(name);
  if (!replay) {
    replay = replayScenario(loadScenario(name), { ruleSet: defaultRuleSet() });
    replays.set(name, replay);
  }
  return replay;
}

/** The one element of a list, failing the test when there is not exactly one. */
export function only<T>(items: readonly T[]): T {
  if (items.length !== 1) throw new Error(`expected exactly one item, got ${items.length}`);
  return items[0] as T;
}
