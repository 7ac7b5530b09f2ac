import { z } from 'zod';
import {
  describeSeconds,
  durationOutOfRange,
  MAX_HISTORY_SECONDS,
  MAX_HOLD_DOWN_SECONDS,
  MAX_SUSTAINED_SAMPLES,
  outOfRange,
  rangeOfUnit,
} from './bounds.ts';
import type { Condition } from './condition.ts';
import { type Duration, isDuration } from './duration.ts';
import { HINT_SCOPES, type HintScope } from './hint-scope.ts';
import { signalSchema, unknownSignalMessage } from './signal-schema.ts';

export type Severity = 'page' | 'ticket';

/**
 * A remediation step and the incident or document that taught it. `commands` are shell commands to paste, one per
 * entry, which may name the cluster's values as `{cluster}`, `{region}`, `{account}`, `{asgs}` or `{selfManagedAsgs}`
 * (see hint-scope.ts). `appliesTo` limits the hint to clusters of those kinds; without it, it applies to every cluster.
 */
export interface Hint {
  readonly text: string;
  readonly source: string;
  readonly appliesTo?: readonly HintScope[];
  readonly commands?: readonly string[];
}

/**
 * What a rule does inside a mute (a declared maintenance window, or a silence). `notify` pages as if there were none;
 * `mute` holds its first notification until the mute ends, and sends it then if it still fires. The conditional form
 * mutes what an upgrade explains and still pages a real outage: it lets the incident through once one of
 * `notifyWhenFiring` fires on the same cluster (a repair storm with a degraded control plane), once it has fired
 * without a clear for longer than `notifyAfter` (longer than the upgrade can explain), or while `notifyWhen` holds
 * (an outage too severe for any upgrade, such as half of all requests failing for ten minutes). See
 * shared/engine/maintenance.ts and docs/rules.md.
 */
export type MaintenancePolicy =
  | 'notify'
  | 'mute'
  | {
      readonly notifyWhenFiring?: readonly string[];
      readonly notifyAfter?: Duration;
      readonly notifyWhen?: Condition;
    };

export interface RuleParam {
  readonly default: number;
  readonly unit: string;
  readonly description: string;
}

export interface Rule {
  readonly id: string;
  /** Names the cause; it is the headline of every page about it. */
  readonly title: string;
  readonly summary: string;
  readonly severity: Severity;
  readonly params: Readonly<Record<string, RuleParam>>;
  readonly when: Condition;
  /** Rules whose findings this rule's incident explains: they attach to it as symptoms instead of paging. */
  readonly explains: readonly string[];
  /** How long everything must stay clear before the incident resolves. */
  readonly holdDown: Duration;
  readonly maintenance: MaintenancePolicy;
  readonly hints: readonly Hint[];
  readonly runbook: string;
}

const RULE_ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const PARAM_REF = /^\$[A-Za-z][A-Za-z0-9]*$/;

const durationSchema = z.string().refine(isDuration, {
  error: (issue) =>
    `${JSON.stringify(issue.input)} is not a duration: write a number and a unit, s, m, h or d, like 90s, 15m, 4h or 2d`,
});
/** A duration from `min` to `max` seconds; the message says which end it missed. */
const boundedDuration = (minSeconds: number, maxSeconds: number) =>
  durationSchema
    .superRefine((text, context) => {
      const problem = durationOutOfRange(text, minSeconds, maxSeconds);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .meta({
      description: `a duration from ${describeSeconds(minSeconds)} to ${describeSeconds(maxSeconds)}, like 90s, 15m, 4h or 2d`,
    });
/** A window of history: at least a minute (one sample), at most what CloudWatch keeps at one-minute resolution. */
const windowSchema = boundedDuration(60, MAX_HISTORY_SECONDS);
const holdDownSchema = boundedDuration(0, MAX_HOLD_DOWN_SECONDS);
const comparatorSchema = z.enum(['>', '>=', '<', '<='], { error: 'expected a comparator: >, >=, < or <=' });
const paramRefSchema = z.custom<`$${string}`>((value) => typeof value === 'string' && PARAM_REF.test(value));
const thresholdSchema = z.union(
  [z.number().min(0, { error: 'expected a threshold of 0 or more: no signal is negative' }), paramRefSchema],
  {
    error: 'expected a number or a parameter reference like $writeP99Seconds',
  },
);
const termSchema = z.union([signalSchema, z.strictObject({ sum: z.array(signalSchema).min(2) })], {
  error: (issue) =>
    typeof issue.input === 'string'
      ? unknownSignalMessage(issue.input)
      : 'expected a signal name or { "sum": [signal, signal, ...] }',
});
const differenceSchema = z.strictObject({ difference: z.tuple([termSchema, termSchema]) });
const operandSchema = z.union(
  [
    termSchema,
    z.strictObject({
      ratio: z.tuple([z.union([termSchema, differenceSchema]), termSchema]),
      minDenominator: z.number().min(0).optional(),
    }),
    differenceSchema,
  ],
  {
    error: (issue) =>
      typeof issue.input === 'string'
        ? unknownSignalMessage(issue.input)
        : 'expected a signal name, { "sum": [...] }, { "ratio": [numerator, denominator] } (the numerator may be a difference) or { "difference": [from, taken] }',
  },
);

const CONDITION_KINDS = ['threshold', 'sustained', 'window', 'change', 'absent', 'allOf', 'anyOf', 'noneOf'] as const;

export const conditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.discriminatedUnion(
    'kind',
    [
      z.strictObject({ kind: z.literal('threshold'), of: operandSchema, op: comparatorSchema, value: thresholdSchema }),
      z
        .strictObject({
          kind: z.literal('sustained'),
          of: operandSchema,
          op: comparatorSchema,
          value: thresholdSchema,
          m: z.int().min(1),
          n: z
            .int()
            .min(1)
            .max(MAX_SUSTAINED_SAMPLES, {
              error: `expected at most ${MAX_SUSTAINED_SAMPLES} samples (15 days of one-minute data, all CloudWatch keeps)`,
            }),
        })
        .refine((c) => c.m <= c.n, { error: 'm must not exceed n ("m of the last n samples")', path: ['m'] }),
      z
        .strictObject({
          kind: z.literal('window'),
          of: operandSchema,
          aggregate: z.enum(['sum', 'avg', 'max', 'min', 'count', 'episodes']),
          window: windowSchema,
          where: z.strictObject({ op: comparatorSchema, value: thresholdSchema }).optional(),
          op: comparatorSchema,
          value: thresholdSchema,
        })
        .refine((c) => c.aggregate !== 'episodes' || c.where !== undefined, {
          error: 'an episodes aggregate needs "where": which samples make an episode',
          path: ['where'],
        }),
      z.strictObject({
        kind: z.literal('change'),
        of: operandSchema,
        aggregate: z.enum(['avg', 'max', 'min', 'sum']),
        window: windowSchema,
        baseline: windowSchema,
        mode: z.enum(['ratio', 'delta']),
        op: comparatorSchema,
        value: thresholdSchema,
      }),
      z.strictObject({ kind: z.literal('absent'), of: z.array(signalSchema).min(1), window: windowSchema }),
      z.strictObject({ kind: z.literal('allOf'), conditions: z.array(conditionSchema).min(1) }),
      z.strictObject({ kind: z.literal('anyOf'), conditions: z.array(conditionSchema).min(1) }),
      z.strictObject({ kind: z.literal('noneOf'), conditions: z.array(conditionSchema).min(1) }),
    ],
    { error: `expected a condition with "kind" one of ${CONDITION_KINDS.join(', ')}` },
  ),
);

export const severitySchema = z.enum(['page', 'ticket'], { error: 'expected "page" or "ticket"' });
export const ruleIdSchema = z
  .string()
  .regex(RULE_ID, { error: 'expected a kebab-case rule id like webhook-blackhole' });

export const hintSchema = z.strictObject({
  text: z.string().min(1),
  source: z.string().min(1),
  appliesTo: z
    .array(z.enum(HINT_SCOPES as [HintScope, ...HintScope[]], { error: `expected one of ${HINT_SCOPES.join(', ')}` }))
    .min(1)
    .optional(),
  commands: z.array(z.string().min(1)).min(1).optional(),
});

/** A grace period: at least a minute (one sample), at most a day (no upgrade explains a day-long outage). */
const graceSchema = boundedDuration(60, MAX_HOLD_DOWN_SECONDS);

export const maintenancePolicySchema = z.union(
  [
    z.enum(['notify', 'mute']),
    z
      .strictObject({
        notifyWhenFiring: z.array(ruleIdSchema).min(1).optional(),
        notifyAfter: graceSchema.optional(),
        notifyWhen: conditionSchema.optional(),
      })
      .refine((p) => p.notifyWhenFiring ?? p.notifyAfter ?? p.notifyWhen, {
        error: 'name at least one of "notifyWhenFiring", "notifyAfter" or "notifyWhen", or write "mute"',
      }),
  ],
  {
    error:
      'expected "notify", "mute" or { "notifyWhenFiring": [rule ids], "notifyAfter": duration, "notifyWhen": condition }',
  },
);

export const ruleSchema = z.strictObject({
  id: ruleIdSchema,
  title: z.string().min(1),
  summary: z.string().min(1),
  severity: severitySchema,
  params: z
    .record(
      z.string().regex(/^[A-Za-z][A-Za-z0-9]*$/),
      z
        .strictObject({ default: z.number(), unit: z.string(), description: z.string().min(1) })
        .superRefine((param, context) => {
          const problem = outOfRange(param.default, rangeOfUnit(param.unit));
          if (problem) context.addIssue({ code: 'custom', message: problem, path: ['default'] });
        }),
    )
    .default({}),
  when: conditionSchema,
  explains: z.array(ruleIdSchema).default([]),
  holdDown: holdDownSchema.default('15m'),
  maintenance: maintenancePolicySchema.default('mute'),
  hints: z.array(hintSchema).min(1, {
    error: 'a rule needs at least one remediation hint that names its source',
  }),
  runbook: z.string().min(1),
}) satisfies z.ZodType<Rule, unknown>;

/** Per-cluster (or fleet-wide) changes to one rule, from the deployment configuration. */
export const ruleOverrideSchema = z.strictObject({
  enabled: z.boolean().optional(),
  severity: severitySchema.optional(),
  params: z.record(z.string(), z.number()).optional(),
  holdDown: holdDownSchema.optional(),
});
export type RuleOverride = z.infer<typeof ruleOverrideSchema>;
export const ruleOverridesSchema = z.record(ruleIdSchema, ruleOverrideSchema);
export type RuleOverrides = z.infer<typeof ruleOverridesSchema>;
