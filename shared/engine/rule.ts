import * as z from 'zod';
import {
  describeSeconds,
  durationOutOfRange,
  MAX_HISTORY_SECONDS,
  MAX_HOLD_DOWN_SECONDS,
  MAX_SUSTAINED_SAMPLES,
  outOfRange,
  rangeOfUnit,
} from './bounds.ts';
import { type Condition, SHARE_CONFIDENCES } from './condition.ts';
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
  /**
   * Another rule's parameter whose value this one takes on every cluster, that rule's overrides included: two rules
   * that must judge one condition alike (nodes-unreachable stands aside on node-repair-storm's storm) read one value,
   * set in one place. An override of a following parameter is refused with where to set it.
   */
  readonly follows?: { readonly rule: string; readonly param: string };
}

export interface Rule {
  readonly id: string;
  /** Names the cause; it is the headline of every page about it. */
  readonly title: string;
  readonly summary: string;
  readonly severity: Severity;
  readonly params: Readonly<Record<string, RuleParam>>;
  /**
   * Parameters an earlier release had and this one removed, each with what to do instead: an override of one is
   * refused with that advice rather than as an unknown name, so that an upgrade says what changed.
   */
  readonly retiredParams?: Readonly<Record<string, string>>;
  readonly when: Condition;
  /** Rules whose findings this rule's incident explains: they attach to it as symptoms instead of paging. */
  readonly explains: readonly string[];
  /** How long everything must stay clear before the incident resolves. */
  readonly holdDown: Duration;
  readonly maintenance: MaintenancePolicy;
  readonly hints: readonly Hint[];
  readonly runbook: string;
  /**
   * For a rule whose likelier cause, on several clusters of one Region at once, is the Region (signals-missing:
   * CloudWatch there): its fleet incidents are one per Region, and one of several clusters is titled `title`, with
   * `{region}` the Region's name.
   */
  readonly perRegion?: { readonly title: string };
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
const WINDOW_RANGE = `from ${describeSeconds(60)} to ${describeSeconds(MAX_HISTORY_SECONDS)}`;
const windowSchema = boundedDuration(60, MAX_HISTORY_SECONDS).meta({
  description: `The trailing window of history read, ${WINDOW_RANGE}, like 10m or 2h.`,
});
const holdDownSchema = boundedDuration(0, MAX_HOLD_DOWN_SECONDS).meta({
  description: `How long the condition must stay clear before the incident resolves, ${describeSeconds(0)} to ${describeSeconds(MAX_HOLD_DOWN_SECONDS)}.`,
});
const comparatorSchema = z
  .enum(['>', '>=', '<', '<='], { error: 'expected a comparator: >, >=, < or <=' })
  .meta({ description: 'How the value read compares with the threshold: >, >=, < or <=.' });
const paramRefSchema = z.custom<`$${string}`>((value) => typeof value === 'string' && PARAM_REF.test(value));
const thresholdSchema = z
  .union([z.number().min(0, { error: 'expected a threshold of 0 or more: no signal is negative' }), paramRefSchema], {
    error: 'expected a number or a parameter reference like $writeP99Seconds',
  })
  .meta({ description: "The threshold: a number of 0 or more, or $name for one of the rule's params." });
const termSchema = z.union(
  [
    signalSchema,
    z.strictObject({ sum: z.array(signalSchema).min(2).meta({ description: 'Signals added up, sample by sample.' }) }),
  ],
  {
    error: (issue) =>
      typeof issue.input === 'string'
        ? unknownSignalMessage(issue.input)
        : 'expected a signal name or { "sum": [signal, signal, ...] }',
  },
);
const differenceSchema = z.strictObject({
  difference: z.tuple([termSchema, termSchema]).meta({
    description: '[from, taken]: what is left of the first once the second is taken out, never below zero.',
  }),
});
const operandSchema = z
  .union(
    [
      termSchema,
      z.strictObject({
        ratio: z.tuple([z.union([termSchema, differenceSchema]), termSchema]).meta({
          description:
            '[numerator, denominator]: the numerator (a signal, a sum or a difference) over the denominator.',
        }),
        minDenominator: z.number().min(0).optional().meta({
          description: 'Below this denominator the ratio is unknown, not computed: too few requests to judge a share.',
        }),
        confidence: z
          .union(SHARE_CONFIDENCES.map((level) => z.literal(level)))
          .optional()
          .meta({
            description:
              "For a share of events (errors among requests): read each sample as the lower end of its Wilson score interval at this confidence, so that a share of a few events needs more of them to pass a threshold; an average over a window pools the window's counts and reads them so.",
          }),
      }),
      differenceSchema,
    ],
    {
      error: (issue) =>
        typeof issue.input === 'string'
          ? unknownSignalMessage(issue.input)
          : 'expected a signal name, { "sum": [...] }, { "ratio": [numerator, denominator] } (the numerator may be a difference) or { "difference": [from, taken] }',
    },
  )
  .meta({ description: 'What the condition reads: a signal, or a sum, ratio or difference of signals.' });
const kindOf = <K extends string>(kind: K, description: string) => z.literal(kind).meta({ description });

const CONDITION_KINDS = ['threshold', 'sustained', 'window', 'change', 'absent', 'allOf', 'anyOf', 'noneOf'] as const;

export const conditionSchema: z.ZodType<Condition> = z.lazy(() =>
  z.discriminatedUnion(
    'kind',
    [
      z.strictObject({
        kind: kindOf('threshold', 'threshold: the newest sample compared with value.'),
        of: operandSchema,
        op: comparatorSchema,
        value: thresholdSchema,
      }),
      z
        .strictObject({
          kind: kindOf('sustained', 'sustained: at least m of the last n samples pass.'),
          of: operandSchema,
          op: comparatorSchema,
          value: thresholdSchema,
          m: z.int().min(1).meta({ description: 'How many of the last n samples must pass.' }),
          n: z
            .int()
            .min(1)
            .max(MAX_SUSTAINED_SAMPLES, {
              error: `expected at most ${MAX_SUSTAINED_SAMPLES} samples (15 days of one-minute data, all CloudWatch keeps)`,
            })
            .meta({
              description: `How many of the newest one-minute samples are looked at, at most ${MAX_SUSTAINED_SAMPLES} (15 days, all CloudWatch keeps at one minute).`,
            }),
        })
        .refine((c) => c.m <= c.n, { error: 'm must not exceed n ("m of the last n samples")', path: ['m'] }),
      z
        .strictObject({
          kind: kindOf('window', 'window: an aggregate over a trailing window compared with value.'),
          of: operandSchema,
          aggregate: z.enum(['sum', 'avg', 'max', 'min', 'count', 'episodes']).meta({
            description:
              "How the window's samples become one value: sum, avg, max, min, count, or episodes (separate runs of samples passing where).",
          }),
          window: windowSchema,
          where: z
            .strictObject({ op: comparatorSchema, value: thresholdSchema })
            .optional()
            .meta({ description: 'Which samples make an episode, for the episodes aggregate.' }),
          op: comparatorSchema,
          value: thresholdSchema,
        })
        .refine((c) => c.aggregate !== 'episodes' || c.where !== undefined, {
          error: 'an episodes aggregate needs "where": which samples make an episode',
          path: ['where'],
        }),
      z
        .strictObject({
          kind: kindOf('change', "change: the recent window's aggregate against the baseline just before it."),
          of: operandSchema,
          per: operandSchema.optional().meta({
            description:
              'With mode delta: divide the change of `of` by the change of this operand over the same windows (how much `of` rose for each unit this rose); unknown while this has not risen to twice its baseline.',
          }),
          aggregate: z
            .enum(['avg', 'max', 'min', 'sum'])
            .meta({ description: "How each window's samples become one value: avg, max, min or sum." }),
          window: windowSchema,
          baseline: windowSchema.meta({
            description: `The window just before the recent one that it is compared with; ${WINDOW_RANGE}.`,
          }),
          mode: z
            .enum(['ratio', 'delta'])
            .meta({ description: 'ratio: recent over baseline (2 for double); delta: recent minus baseline.' }),
          op: comparatorSchema,
          value: thresholdSchema,
        })
        .refine((c) => c.per === undefined || c.mode === 'delta', {
          error: 'a change "per" another operand divides two differences: it needs mode "delta"',
          path: ['per'],
        }),
      z.strictObject({
        kind: kindOf('absent', 'absent: none of the signals has a datapoint in the window.'),
        of: z.array(signalSchema).min(1).meta({ description: 'The signals that must all be silent.' }),
        window: windowSchema,
      }),
      z.strictObject({
        kind: kindOf('allOf', 'allOf: every condition is met.'),
        conditions: z.array(conditionSchema).min(1).meta({ description: 'The conditions it combines.' }),
      }),
      z.strictObject({
        kind: kindOf('anyOf', 'anyOf: at least one condition is met.'),
        conditions: z.array(conditionSchema).min(1).meta({ description: 'The conditions it combines.' }),
      }),
      z.strictObject({
        kind: kindOf('noneOf', 'noneOf: no condition is seen met; unknown and unevaluable children count as not seen.'),
        conditions: z.array(conditionSchema).min(1).meta({ description: 'The conditions it combines.' }),
      }),
    ],
    { error: `expected a condition with "kind" one of ${CONDITION_KINDS.join(', ')}` },
  ),
);

export const severitySchema = z.enum(['page', 'ticket'], { error: 'expected "page" or "ticket"' }).meta({
  description: 'page: wakes on-call, on the paging topic; ticket: a notice for working hours, on the notice topic.',
});
export const ruleIdSchema = z
  .string()
  .regex(RULE_ID, { error: 'expected a kebab-case rule id like webhook-blackhole' });

export const hintSchema = z.strictObject({
  text: z.string().min(1).meta({ description: 'What to check or do, in a sentence.' }),
  source: z
    .string()
    .min(1)
    .meta({ description: 'Where the hint comes from: the incident report or documentation page, with its address.' }),
  appliesTo: z
    .array(z.enum(HINT_SCOPES as [HintScope, ...HintScope[]], { error: `expected one of ${HINT_SCOPES.join(', ')}` }))
    .min(1)
    .optional()
    .meta({ description: `The kinds of nodes it applies to (${HINT_SCOPES.join(', ')}); unset, every cluster.` }),
  commands: z.array(z.string().min(1)).min(1).optional().meta({ description: 'Commands to run, shown with the hint.' }),
});

/** A grace period: at least a minute (one sample), at most a day (no upgrade explains a day-long outage). */
const graceSchema = boundedDuration(60, MAX_HOLD_DOWN_SECONDS);

export const maintenancePolicySchema = z
  .union(
    [
      z.enum(['notify', 'mute']),
      z
        .strictObject({
          notifyWhenFiring: z
            .array(ruleIdSchema)
            .min(1)
            .optional()
            .meta({ description: 'Notify in a window when one of these rules fires on the same cluster.' }),
          notifyAfter: graceSchema.optional().meta({
            description: `Notify in a window once it has fired this long without going clear, ${describeSeconds(60)} to ${describeSeconds(MAX_HOLD_DOWN_SECONDS)}.`,
          }),
          notifyWhen: conditionSchema.optional().meta({
            description: 'Notify in a window when this condition holds: an outage too severe for any upgrade.',
          }),
        })
        .refine((p) => p.notifyWhenFiring ?? p.notifyAfter ?? p.notifyWhen, {
          error: 'name at least one of "notifyWhenFiring", "notifyAfter" or "notifyWhen", or write "mute"',
        }),
    ],
    {
      error:
        'expected "notify", "mute" or { "notifyWhenFiring": [rule ids], "notifyAfter": duration, "notifyWhen": condition }',
    },
  )
  .meta({
    description:
      'What a maintenance window does to the rule: "mute", "notify", or mute unless notifyWhenFiring, notifyAfter or notifyWhen says otherwise (docs/rules.md, Maintenance).',
  });

export const ruleSchema = z.strictObject({
  id: ruleIdSchema.meta({
    description: 'The rule id, kebab-case: overrides, explains and silences name the rule by it.',
  }),
  title: z.string().min(1).meta({ description: 'A short title: the first line of its notifications.' }),
  summary: z.string().min(1).meta({ description: 'What the failure means for the cluster, in a sentence.' }),
  severity: severitySchema,
  params: z
    .record(
      z.string().regex(/^[A-Za-z][A-Za-z0-9]*$/),
      z
        .strictObject({
          default: z.number().meta({ description: 'The value unless an override sets another.' }),
          unit: z.string().meta({ description: 'Its unit (seconds, ratio, count...): bounds what it may be set to.' }),
          description: z.string().min(1).meta({ description: 'What the parameter means.' }),
          follows: z
            .strictObject({
              rule: ruleIdSchema.meta({ description: 'The id of the rule whose parameter this one takes.' }),
              param: z.string().min(1).meta({ description: 'The name of that rule’s parameter.' }),
            })
            .optional()
            .meta({
              description:
                'Take this value from another rule’s parameter on every cluster, its overrides included; an override of this one is refused.',
            }),
        })
        .superRefine((param, context) => {
          const problem = outOfRange(param.default, rangeOfUnit(param.unit));
          if (problem) context.addIssue({ code: 'custom', message: problem, path: ['default'] });
        }),
    )
    .default({})
    .meta({ description: 'Numbers its conditions name as $name, each with a default that overrides may change.' }),
  retiredParams: z
    .record(z.string().regex(/^[A-Za-z][A-Za-z0-9]*$/), z.string().min(1))
    .optional()
    .meta({
      description:
        'Parameters an earlier version of the rule had, each with what to do instead: an override of one is refused with that advice.',
    }),
  when: conditionSchema.meta({ description: 'The condition that fires the rule.' }),
  explains: z.array(ruleIdSchema).default([]).meta({
    description: 'Rules whose findings this one explains: on the same cluster they become its symptoms, not pages.',
  }),
  holdDown: holdDownSchema.default('15m'),
  maintenance: maintenancePolicySchema.default('mute'),
  hints: z
    .array(hintSchema)
    .min(1, {
      error: 'a rule needs at least one remediation hint that names its source',
    })
    .meta({ description: 'Remediation hints, each with its source.' }),
  runbook: z.string().min(1).meta({ description: 'The runbook path, like docs/runbooks/RULE-ID.md.' }),
  perRegion: z
    .strictObject({
      title: z
        .string()
        .includes('{region}', { error: 'expected a title that names the Region as {region}' })
        .meta({ description: 'The title of a fleet incident of several clusters of one Region.' }),
    })
    .optional()
    .meta({
      description:
        "One fleet incident per Region, for a rule whose cause on several clusters at once is likelier their Region's than theirs.",
    }),
}) satisfies z.ZodType<Rule, unknown>;

/** Per-cluster (or fleet-wide) changes to one rule, from the deployment configuration. */
export const ruleOverrideSchema = z.strictObject({
  enabled: z.boolean().optional().meta({ description: 'false turns the rule off.' }),
  severity: severitySchema.optional(),
  params: z
    .record(z.string(), z.number())
    .optional()
    .meta({ description: "New values for the rule's params, by name, within the bounds of each one's unit." }),
  holdDown: holdDownSchema.optional(),
});
export type RuleOverride = z.infer<typeof ruleOverrideSchema>;
export const ruleOverridesSchema = z.record(ruleIdSchema, ruleOverrideSchema);
export type RuleOverrides = z.infer<typeof ruleOverridesSchema>;
