import * as z from 'zod';
import type { Labels } from '../config/cluster-labels.ts';
import { type GroupingConfig, groupingSchema, labelsSchema } from '../config/deployment-config.ts';
import type { MaintenanceWindow } from '../engine/maintenance.ts';
import { parseMatcher } from '../engine/matchers.ts';
import { signalRecord } from '../engine/signal-schema.ts';
import type { Sample, SignalName } from '../engine/signals.ts';
import { InputError, type InputProblem } from '../errors.ts';
import type { Silence } from '../pipeline/silence.ts';
import { jsonPath, parseWith } from '../schema-errors.ts';
import { isIsoUtc, isoSeconds } from '../time.ts';
import { CompactSeriesError, parseCompactSeries } from './compact-series.ts';
import { isScenarioTime, scenarioTimeMs } from './scenario-time.ts';

export const SCENARIO_FORMAT = 'sentinel.scenario/v1';

/** The last instant ISO-8601's four-digit years can write. */
const LATEST_TIME_MS = Date.parse('9999-12-31T23:59:59Z');

const timeSchema = z.string().refine(isScenarioTime, {
  error: 'expected an ISO-8601 UTC time (2019-03-04T09:00:00Z) or an offset from start (+90s, +12m, +3h, +2d)',
});
const seriesSchema = z.union([z.string(), z.array(z.number().or(z.null()))], {
  error: 'expected a compact series string ("0.2*30 0.2..12*4 _*3") or an array of numbers and null',
});

const scenarioSchema = z.strictObject({
  format: z.literal(SCENARIO_FORMAT, { error: `expected "${SCENARIO_FORMAT}"` }),
  name: z.string().min(1),
  description: z.string().default(''),
  start: z.string().refine(isIsoUtc, { error: 'expected an ISO-8601 UTC time like 2019-03-04T09:00:00Z' }),
  stepSeconds: z
    .int()
    .min(10, { error: 'expected at least 10 seconds between samples' })
    .max(3600, { error: 'expected at most 3600 seconds (one hour) between samples' })
    .default(60),
  clusters: z
    .record(
      z.string(),
      z.strictObject({
        signals: signalRecord(seriesSchema),
        labels: labelsSchema.optional(),
        // The AWS Region the cluster runs in, as a configuration's `clusters[].region` says it.
        region: z.string().min(1).optional(),
      }),
    )
    .refine((clusters) => Object.keys(clusters).length > 0, { error: 'expected at least one cluster' })
    .refine((clusters) => !Object.hasOwn(clusters, ''), {
      error: 'a cluster key is empty: name the cluster, like "prod-euw1"',
    }),
  // Unset, a replay groups as the configuration it is given says, or by default.
  grouping: z.union([z.undefined(), groupingSchema]),
  maintenance: z
    .array(z.strictObject({ cluster: z.string().min(1), from: timeSchema, to: timeSchema, reason: z.string().min(1) }))
    .default([]),
  silences: z
    .array(
      z.strictObject({
        id: z.string().min(1).optional(),
        cluster: z.string().min(1).optional(),
        rule: z.string().min(1).optional(),
        // As `sentinel silence add --match` writes them: "environment=staging", "rule!=node-churn".
        matchers: z.array(z.string().min(1)).min(1).optional(),
        includePages: z.boolean().optional(),
        from: timeSchema,
        to: timeSchema,
        reason: z.string().min(1),
        author: z.string().min(1).optional(),
      }),
    )
    .default([]),
  expect: z
    .array(
      z.strictObject({
        cluster: z.string().min(1),
        rule: z.string().min(1).optional(),
        kind: z.enum(['page', 'ticket', 'update', 'resolve']).optional(),
        count: z.int().min(0).optional(),
        onset: timeSchema.optional(),
        after: timeSchema.optional(),
        before: timeSchema.optional(),
      }),
    )
    .default([]),
});

/** A scenario's series: plain arrays, as the file writes them. */
export type ScenarioSeries = Partial<Record<SignalName, readonly Sample[]>>;

export interface Expectation {
  readonly cluster: string;
  readonly rule?: string;
  readonly kind?: 'page' | 'ticket' | 'update' | 'resolve';
  readonly count?: number;
  readonly onset?: number;
  readonly after?: number;
  readonly before?: number;
  /** Where it stands in the file, to name it in a failed check. */
  readonly path: string;
}

export interface Scenario {
  readonly file: string;
  readonly name: string;
  readonly description: string;
  readonly start: number;
  readonly stepSeconds: number;
  readonly steps: number;
  readonly clusters: ReadonlyMap<string, ScenarioSeries>;
  /** The clusters' labels, for those that have any. */
  readonly labels?: ReadonlyMap<string, Labels>;
  /** The clusters' Regions, for those that name one. */
  readonly regions?: ReadonlyMap<string, string>;
  /** How its clusters group into fleet incidents, when it says (a replay's configuration says otherwise). */
  readonly grouping?: GroupingConfig;
  readonly maintenance: readonly MaintenanceWindow[];
  /** Silences as `sentinel silence add` stores them, in the store before the first step; absent: none. */
  readonly silences?: readonly Silence[];
  readonly expect: readonly Expectation[];
}

/** Validates a parsed JSON value against format v1 and expands it; every problem names its JSON path. */
export function parseScenario(value: unknown, file: string): Scenario {
  const raw = parseWith(scenarioSchema, value, file);
  const start = Date.parse(raw.start);
  const problems: InputProblem[] = [];
  const clusters = new Map<string, ScenarioSeries>();
  let reference: { where: string; length: number } | undefined;

  for (const [cluster, { signals }] of Object.entries(raw.clusters)) {
    const series: Record<string, Sample[]> = {};
    for (const [signal, written] of Object.entries(signals) as [SignalName, string | (number | null)[]][]) {
      const path = jsonPath(['clusters', cluster, 'signals', signal]);
      let samples: Sample[];
      try {
        samples = typeof written === 'string' ? parseCompactSeries(written) : written;
      } catch (error) {
        if (!(error instanceof CompactSeriesError)) throw error;
        problems.push({ path, message: error.message });
        continue;
      }
      const negative = samples.findIndex((sample) => sample !== null && sample < 0);
      if (negative >= 0) {
        problems.push({
          path,
          message: `sample ${negative} is ${samples[negative]}: no signal is negative (latencies, counts and node numbers are 0 or more)`,
        });
        continue;
      }
      if (!reference) {
        reference = { where: `${cluster} ${signal}`, length: samples.length };
      } else if (samples.length !== reference.length) {
        problems.push({
          path,
          message: `cluster "${cluster}" signal "${signal}" has ${samples.length} samples, but ${reference.where} has ${reference.length}: every series of a scenario has the same length`,
        });
      }
      series[signal] = samples;
    }
    clusters.set(cluster, series);
  }
  if (!reference && problems.length === 0)
    problems.push({ path: '$.clusters', message: 'expected at least one signal series' });

  const known = (cluster: string, path: readonly PropertyKey[]) => {
    if (!clusters.has(cluster)) {
      problems.push({
        path: jsonPath(path),
        message: `unknown cluster "${cluster}": expected one of ${[...clusters.keys()].join(', ')}`,
      });
    }
  };
  const steps = reference?.length ?? 0;
  const end = start + Math.max(0, steps - 1) * raw.stepSeconds * 1000;
  const time = (text: string, path: readonly PropertyKey[]) => {
    const ms = scenarioTimeMs(text, start);
    if (!(ms <= LATEST_TIME_MS)) problems.push({ path: jsonPath(path), message: 'lies beyond the year 9999' });
    return ms;
  };
  /** A mute's period: it must end after it begins, and overlap the scenario, or it would mute nothing. */
  const period = (entry: { from: string; to: string }, path: readonly PropertyKey[]) => {
    const from = time(entry.from, [...path, 'from']);
    const to = time(entry.to, [...path, 'to']);
    if (to <= from) problems.push({ path: jsonPath([...path, 'to']), message: 'must be later than "from"' });
    else if (steps > 0 && (to <= start || from > end)) {
      problems.push({
        path: jsonPath(path),
        message: `lies outside the scenario (${isoSeconds(start)} to ${isoSeconds(end)}): it would mute nothing`,
      });
    }
    return { from, to };
  };
  const maintenance = raw.maintenance.map((w, index) => {
    known(w.cluster, ['maintenance', index, 'cluster']);
    return { cluster: w.cluster, ...period(w, ['maintenance', index]), reason: w.reason };
  });
  const silences = raw.silences.map((silence, index): Silence => {
    if (silence.cluster !== undefined) known(silence.cluster, ['silences', index, 'cluster']);
    else if (silence.matchers === undefined) {
      problems.push({ path: jsonPath(['silences', index]), message: 'expected "cluster" or "matchers"' });
    }
    const matchers = (silence.matchers ?? []).flatMap((text, at) => {
      const matcher = parseMatcher(text);
      if (!matcher) {
        const path = jsonPath(['silences', index, 'matchers', at]);
        problems.push({ path, message: `expected a matcher like "environment=staging" or "rule!=node-churn"` });
      }
      return matcher ? [matcher] : [];
    });
    return {
      id: silence.id ?? `#${index + 1}`,
      ...(silence.cluster !== undefined && { cluster: silence.cluster }),
      ...(silence.rule !== undefined && { rule: silence.rule }),
      ...(matchers.length > 0 && { matchers }),
      ...(silence.includePages && { includePages: true }),
      ...period(silence, ['silences', index]),
      reason: silence.reason,
      author: silence.author ?? file,
    };
  });
  const expect = raw.expect.map((e, index): Expectation => {
    known(e.cluster, ['expect', index, 'cluster']);
    if (e.count !== undefined && (e.after !== undefined || e.before !== undefined)) {
      problems.push({
        path: jsonPath(['expect', index]),
        message: '"after"/"before" bound the first match and cannot go with "count"',
      });
    }
    const at = (field: 'onset' | 'after' | 'before') => {
      const text = e[field];
      return text === undefined ? undefined : time(text, ['expect', index, field]);
    };
    const [onset, after, before] = [at('onset'), at('after'), at('before')];
    if (after !== undefined && before !== undefined && before < after) {
      problems.push({ path: jsonPath(['expect', index, 'before']), message: 'must not be earlier than "after"' });
    }
    return {
      cluster: e.cluster,
      ...(e.rule !== undefined && { rule: e.rule }),
      ...(e.kind !== undefined && { kind: e.kind }),
      ...(e.count !== undefined && { count: e.count }),
      ...(onset !== undefined && { onset }),
      ...(after !== undefined && { after }),
      ...(before !== undefined && { before }),
      path: jsonPath(['expect', index]),
    };
  });
  if (problems.length > 0) throw new InputError(file, problems);
  return {
    file,
    name: raw.name,
    description: raw.description,
    start,
    stepSeconds: raw.stepSeconds,
    steps,
    clusters,
    labels: new Map(Object.entries(raw.clusters).flatMap(([name, c]) => (c.labels ? [[name, c.labels]] : []))),
    regions: new Map(Object.entries(raw.clusters).flatMap(([name, c]) => (c.region ? [[name, c.region]] : []))),
    ...(raw.grouping && { grouping: raw.grouping }),
    maintenance,
    silences,
    expect,
  };
}
