import { z } from 'zod';
import { DEFAULT_RULES } from '../engine/default-rules.ts';
import { isDuration } from '../engine/duration.ts';
import { type Rule, ruleOverridesSchema, ruleSchema } from '../engine/rule.ts';
import { RuleSet } from '../engine/rule-set.ts';
import { InputError, type InputProblem } from '../errors.ts';
import { isIsoUtc } from '../scenario/scenario-time.ts';
import { jsonPath, parseJson, parseWith } from '../schema-errors.ts';

const durationSchema = z.string().refine(isDuration, { error: 'expected a duration like 90s, 15m, 4h or 2d' });
const isoSchema = z.string().refine(isIsoUtc, { error: 'expected an ISO-8601 UTC time like 2026-03-04T09:00:00Z' });

export const clusterSchema = z.strictObject({
  name: z.string().min(1).max(100),
  accountId: z
    .string()
    .regex(/^\d{12}$/, { error: 'expected a 12-digit AWS account id' })
    .optional(),
  region: z
    .string()
    .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, { error: 'expected an AWS region like eu-west-1' })
    .optional(),
  overrides: ruleOverridesSchema.default({}),
});

export const deploymentConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  notifications: z
    .strictObject({
      renotify: durationSchema.default('4h'),
      runbookBaseUrl: z.string().default(''),
    })
    .prefault({}),
  rules: z
    .strictObject({
      overrides: ruleOverridesSchema.default({}),
      custom: z.array(ruleSchema).default([]),
    })
    .prefault({}),
  clusters: z.array(clusterSchema).min(1, { error: 'expected at least one cluster to watch' }),
  maintenance: z
    .array(
      z.strictObject({
        clusters: z.array(z.string().min(1)).min(1).optional(),
        from: isoSchema,
        to: isoSchema,
        reason: z.string().min(1),
      }),
    )
    .default([]),
});

export type DeploymentConfig = z.output<typeof deploymentConfigSchema>;
export type ClusterConfig = z.output<typeof clusterSchema>;

export interface LoadedConfig {
  readonly config: DeploymentConfig;
  readonly ruleSet: RuleSet;
}

/** The default rules plus a configuration's custom rules, each problem pointing into the file it came from. */
export function compileRuleSet(custom: readonly Rule[], file: string): RuleSet {
  return RuleSet.compile(
    [...DEFAULT_RULES, ...custom],
    [
      ...DEFAULT_RULES.map((_, index) => ({ file: 'shared/engine/default-rules.ts', path: [index] })),
      ...custom.map((_, index) => ({ file, path: ['rules', 'custom', index] })),
    ],
  );
}

/** Validate a deployment configuration: its shape, then everything that refers to something else. */
export function loadConfig(value: unknown, file: string): LoadedConfig {
  const config = parseWith(deploymentConfigSchema, value, file);
  const ruleSet = compileRuleSet(config.rules.custom, file);
  const problems: InputProblem[] = [...ruleSet.checkOverrides(config.rules.overrides, ['rules', 'overrides'])];
  const names = new Set<string>();
  config.clusters.forEach((cluster, index) => {
    if (names.has(cluster.name)) {
      problems.push({ path: jsonPath(['clusters', index, 'name']), message: `duplicate cluster "${cluster.name}"` });
    }
    names.add(cluster.name);
    problems.push(...ruleSet.checkOverrides(cluster.overrides, ['clusters', index, 'overrides']));
  });
  config.maintenance.forEach((window, index) => {
    window.clusters?.forEach((name, at) => {
      if (!names.has(name)) {
        problems.push({ path: jsonPath(['maintenance', index, 'clusters', at]), message: `unknown cluster "${name}"` });
      }
    });
    if (Date.parse(window.to) <= Date.parse(window.from)) {
      problems.push({ path: jsonPath(['maintenance', index, 'to']), message: 'must be later than "from"' });
    }
  });
  if (problems.length > 0) throw new InputError(file, problems);
  return { config, ruleSet };
}

export function parseConfigText(text: string, file: string): LoadedConfig {
  return loadConfig(parseJson(text, file), file);
}
