import * as z from 'zod';
import {
  describeSeconds,
  durationOutOfRange,
  GROUPING_BOUNDS,
  POLL_BOUNDS,
  TRIPWIRE_BOUNDS,
} from '../engine/bounds.ts';
import { durationSeconds, isDuration } from '../engine/duration.ts';
import { NODE_KINDS } from '../engine/hint-scope.ts';
import { type Rule, ruleOverridesSchema, ruleSchema } from '../engine/rule.ts';
import { RuleSet } from '../engine/rule-set.ts';
import { DEFAULT_RULES } from '../engine/rules/index.ts';
import { signalRecord } from '../engine/signal-schema.ts';
import { InputError, type InputProblem } from '../errors.ts';
import { didYouMean, suggestion } from '../nearest-name.ts';
import { jsonPath, parseJson, parseWith } from '../schema-errors.ts';
import { isIsoUtc } from '../time.ts';
import { regionProblem } from './aws-regions.ts';
import {
  ambiguousClusterMessage,
  assignDisplayNames,
  DISPLAY_NAME,
  DISPLAY_NAME_MAX,
  lookUpCluster,
} from './cluster-identity.ts';
import { BUILT_IN_LABELS, clusterLabels, LABEL_NAME, subscribedClusters } from './cluster-labels.ts';
import { checkFleetSize } from './fleet-size.ts';
import {
  autoScalingGroupNameSchema,
  checkConfigStrings,
  clusterNameSchema,
  parameterNameSchema,
  secretNameSchema,
} from './template-strings.ts';

const WHOLE_DURATION = /^\d+(s|m|h|d)$/;

const nodeKindSchema = z.enum(NODE_KINDS, { error: `expected a kind of nodes: ${NODE_KINDS.join(', ')}` });
/** One kind of nodes or several; unset, a page shows the hints for every kind, labelled with where each applies. */
const nodeKindsSchema = z
  .union([nodeKindSchema, z.array(nodeKindSchema).min(1)], {
    error: `expected a kind of nodes (${NODE_KINDS.join(', ')}) or a list of them`,
  })
  .meta({
    description:
      "How the cluster's nodes are run, so that its pages show only the hints that apply: one of, or a list of, managed-node-groups, self-managed-groups, karpenter, auto-mode, fargate. Unset, a page shows the hints for every kind, each labelled.",
  });

/**
 * Polls run on whole minutes, so their durations must be whole minutes too, within the bounds of what each is for.
 * `description` says what the field is; the bounds are added to it, from the same numbers the check uses.
 */
const wholeMinutesSchema = (
  { minSeconds, maxSeconds }: { minSeconds: number; maxSeconds: number },
  description: string,
) =>
  z
    .string()
    .refine((text) => isDuration(text) && durationSeconds(text) % 60 === 0, {
      error: (issue) =>
        `${JSON.stringify(issue.input)}: expected a whole number of minutes, like ${describeSeconds(Math.max(60, minSeconds))} or ${describeSeconds(maxSeconds)}`,
    })
    .superRefine((text, context) => {
      const problem = durationOutOfRange(text, minSeconds, maxSeconds);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    })
    .meta({
      description: `${description} Whole minutes from ${describeSeconds(minSeconds)} to ${describeSeconds(maxSeconds)}.`,
      pattern: WHOLE_DURATION.source,
    });
const isoSchema = z.string().refine(isIsoUtc, { error: 'expected an ISO-8601 UTC time like 2026-03-04T09:00:00Z' });

/** The canonical IANA zones the runtime knows, read once: a far cheaper list than a formatter (below). */
let canonicalZones: ReadonlySet<string> | undefined;

/**
 * Whether the runtime takes `zone` as a time zone. A canonical name is looked up in `Intl.supportedValuesOf`, because
 * the first `Intl.DateTimeFormat` of a process loads ICU's locale data (about 10 ms), and a Lambda parses its
 * configuration at every cold start while only the digest formats dates. Anything else (an alias such as `UTC` or
 * `US/Pacific`, another spelling) gets the formatter's verdict, as before.
 */
function isTimeZone(zone: string): boolean {
  canonicalZones ??= new Set(Intl.supportedValuesOf('timeZone'));
  if (canonicalZones.has(zone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A CloudWatch metric that carries one signal, for Prometheus-scraped metrics such as Karpenter's. */
export const customMetricSchema = z.strictObject({
  namespace: z.string().min(1).max(255).meta({ description: 'The CloudWatch namespace of the metric.' }),
  metricName: z.string().min(1).max(255).meta({ description: 'The CloudWatch metric name.' }),
  dimensions: z
    .record(z.string().min(1), z.string().min(1))
    .default({})
    .meta({ description: "The dimensions that pick out this cluster's series, name to value." }),
  stat: z
    .enum(['Sum', 'Average', 'Maximum', 'Minimum', 'SampleCount'])
    .meta({ description: 'The CloudWatch statistic that gives the signal its value each minute.' }),
});
export type CustomMetric = z.output<typeof customMetricSchema>;

const accountIdSchema = z.string().regex(/^\d{12}$/, { error: 'expected a 12-digit AWS account id' });
/** A Region of AWS's list (shared/config/aws-regions.ts); a misspelt one is named with the nearest Region. */
const regionSchema = z
  .string()
  .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, { error: 'expected an AWS region like eu-west-1' })
  .superRefine((region, context) => {
    const problem = regionProblem(region);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  });

/** An OAM sink's ARN: `arn:aws:oam:REGION:ACCOUNT:sink/ID` (OAM API Reference, CreateSink). */
export const SINK_ARN = /^arn:aws[a-z-]*:oam:([a-z]{2}(?:-[a-z]+)+-\d):(\d{12}):sink\/[A-Za-z0-9-]+$/;
export const sinkArnSchema = z.string().regex(SINK_ARN, {
  error: 'expected an OAM sink ARN like arn:aws:oam:eu-west-1:111122223333:sink/0123abcd-...',
});

/** The Region and account of an OAM sink ARN, or undefined when the text is not one. */
export function parseSinkArn(arn: string): { readonly region: string; readonly account: string } | undefined {
  const match = SINK_ARN.exec(arn);
  return match?.[1] && match[2] ? { region: match[1], account: match[2] } : undefined;
}

/**
 * Where the OpsStack goes. Named, it pins the stacks to that account and Region whatever credentials run cdk: the
 * workload accounts synthesize the app with their own credentials, and their stacks must still know the ops account
 * and Region (the sink is there). Required as soon as a cluster names an `accountId`.
 */
export const opsSchema = z
  .strictObject({
    accountId: accountIdSchema.optional().meta({ description: 'The ops account: the OpsStack deploys only there.' }),
    region: regionSchema.optional().meta({ description: "The ops stack's Region." }),
    existingSinks: z.array(sinkArnSchema).default([]).meta({
      description:
        'OAM sinks the ops account already has, one per Region at most: the workload accounts link to these instead of a sink the stacks would create (an account can have one sink per Region).',
    }),
  })
  .prefault({})
  .meta({
    description:
      'Where the OpsStack goes. Named, it pins the stacks to that account and Region whatever credentials run cdk. Required as soon as a cluster names an accountId.',
  });

/**
 * A label's name, as Prometheus writes one (https://prometheus.io/docs/concepts/data_model/#metric-names-and-labels),
 * so that a name an Alertmanager user would write works here; the names the pipeline gives every cluster itself
 * (`BUILT_IN_LABELS`) are refused.
 */
const labelNameSchema = z
  .string()
  .regex(LABEL_NAME, { error: 'expected a label name: letters, digits and "_", not starting with a digit' })
  .refine((name) => !(BUILT_IN_LABELS as readonly string[]).includes(name), {
    error: `${BUILT_IN_LABELS.join(', ')} are given by the pipeline: name the label otherwise`,
  });
const labelValueSchema = z.string().min(1, { error: 'expected a label value' }).max(128);
/** A cluster's labels, in a configuration or a scenario. */
export const labelsSchema = z.record(labelNameSchema, labelValueSchema);

export const clusterSchema = z.strictObject({
  name: clusterNameSchema.meta({ description: 'The EKS cluster name, as CloudWatch and the EKS console show it.' }),
  displayName: z
    .string()
    .max(DISPLAY_NAME_MAX, { error: `expected a display name of at most ${DISPLAY_NAME_MAX} characters` })
    .regex(DISPLAY_NAME, {
      error: 'expected a display name: letters, digits and "-_.@/", starting with a letter or a digit',
    })
    .optional()
    .meta({
      description:
        'The name pages, silences, subscriptions and stored state use for the cluster. Unset: its name, or, when another cluster in another account or Region has the same name, NAME@ACCOUNT/REGION.',
    }),
  accountId: accountIdSchema
    .optional()
    .meta({ description: "The workload account the cluster runs in; unset, the ops account's." }),
  region: regionSchema.optional().meta({ description: "The cluster's Region; unset, the ops stack's." }),
  labels: labelsSchema.optional().meta({
    description:
      'Labels of the cluster, such as {"environment": "prod", "team": "payments"}: grouping.by keeps clusters with different values on different pages, subscriptions and silences can match them. account, region and cluster are given by the pipeline.',
  }),
  source: z
    .strictObject({
      profile: z.enum(['eks', 'custom'], { error: 'expected "eks" or "custom"' }).default('eks').meta({
        description:
          'eks: the AWS/EKS vended control-plane metrics and Container Insights; custom: only the metrics listed under custom.',
      }),
      nodeGroups: z.array(autoScalingGroupNameSchema).default([]).meta({
        description:
          "Auto Scaling group names of the cluster's node groups: their termination events name the cluster even when EC2 no longer describes the instance (node churn is counted from events), and hints name them.",
      }),
      containerInsights: z.boolean().default(true).meta({
        description:
          'Whether the cluster publishes Container Insights: the node signals the NotReady rules read (nodes.total, nodes.notready) come from it. Off, they are not read, and those rules run without them (sentinel doctor says which).',
      }),
      custom: signalRecord(customMetricSchema).default({}).meta({
        description:
          "Signals read from a custom CloudWatch namespace instead of (or on top of) the profile, by signal name (Prometheus-scraped metrics such as Karpenter's).",
      }),
      // --- Hints: how the cluster's nodes run, so its pages show only the hints that apply. ---
      nodes: nodeKindsSchema.optional(),
    })
    .prefault({})
    .meta({ description: "Where the cluster's signals come from, and how its nodes run." }),
  overrides: ruleOverridesSchema
    .default({})
    .meta({ description: 'Changes to rules on this cluster only, by rule id, over rules.overrides.' }),
});

const secretNameField = secretNameSchema.meta({
  description: 'The name of a Secrets Manager secret in the ops account and Region.',
});
const parameterNameField = parameterNameSchema.meta({
  description:
    'The name of a SecureString parameter of Parameter Store in the ops account and Region, like /sentinel/pagerduty-routing-key: a standard parameter is free, where a secret costs $0.40 a month.',
});
const jsonFieldSchema = z.string().min(1).max(256).optional().meta({
  description: "The field of the secret's or parameter's JSON that holds the value; unset, the whole string is it.",
});

/** The fields that name where a SecretReference's value is kept, one per store, in the order of the union below. */
const STORE_FIELDS = ['secretName', 'parameterName'] as const;

/**
 * Where a value read at run time is kept (a vendor key, a URL that carries a token): a secret of Secrets Manager or a
 * SecureString parameter of Parameter Store, named by exactly one of `secretName` and `parameterName`, and the field
 * of its JSON that holds the value when it is not the whole string.
 */
const secretReferenceSchema = z.union(
  [
    z.strictObject({ secretName: secretNameField, jsonField: jsonFieldSchema }),
    z.strictObject({ parameterName: parameterNameField, jsonField: jsonFieldSchema }),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? referenceProblem(issue.input, issue.errors) : undefined) },
);
export type SecretReference = z.output<typeof secretReferenceSchema>;

/**
 * What is wrong with a reference that neither kind takes, said at the reference: zod gives the problems of each kind,
 * and only those of the kind it names are about what the user wrote. (A problem with the named field alone, such as
 * a name that does not match its pattern, fails that kind only, and zod reports it at the field itself.)
 */
function referenceProblem(input: unknown, problemsByKind: readonly (readonly z.core.$ZodIssue[])[]): string {
  const kinds = '"secretName" (a Secrets Manager secret) or "parameterName" (a Parameter Store SecureString parameter)';
  if (typeof input !== 'object' || input === null) return `expected an object with ${kinds}`;
  const named = STORE_FIELDS.filter((field) => field in input);
  const [field] = named;
  if (field === undefined) return `expected ${kinds}`;
  if (named.length > 1)
    return 'expected one of "secretName" and "parameterName", not both: the value is kept in one place';
  return (problemsByKind[STORE_FIELDS.indexOf(field)] ?? [])
    .map(({ path, message }) => (path.length > 0 ? `${path.join('.')}: ${message}` : message))
    .join('; ');
}

/** Where a reference's value is kept: the store and the name it has there. */
export function secretStoreOf(reference: SecretReference): {
  readonly store: 'secret' | 'parameter';
  readonly name: string;
} {
  return 'secretName' in reference
    ? { store: 'secret', name: reference.secretName }
    : { store: 'parameter', name: reference.parameterName };
}

/** How errors and logs name a reference, never its value: `secret NAME` or `parameter NAME`. */
export function describeSecretReference(reference: SecretReference): string {
  const { store, name } = secretStoreOf(reference);
  return `${store} ${name}`;
}

const subscriberSchema = z.discriminatedUnion(
  'protocol',
  [
    z.strictObject({
      protocol: z
        .literal('email')
        .meta({ description: 'An SNS email subscription: confirmed from the first message.' }),
      endpoint: z.email({ error: 'expected an email address' }).meta({ description: 'The email address.' }),
    }),
    z.strictObject({
      protocol: z.literal('sms').meta({ description: 'An SNS SMS subscription: billed per message by country.' }),
      endpoint: z
        .string()
        .regex(/^\+[1-9]\d{6,14}$/, { error: 'expected a phone number in E.164 form, like +4915112345678' })
        .meta({ description: 'The phone number in E.164 form, like +4915112345678.' }),
    }),
    z
      .strictObject({
        protocol: z
          .literal('https')
          .meta({ description: 'An SNS HTTPS subscription: a webhook that receives the JSON.' }),
        endpoint: z
          // A URL that carries a credential is refused before the schema reads it (checkConfigStrings).
          .url({ protocol: /^https$/, error: 'expected an https:// URL' })
          .optional()
          .meta({ description: 'The https:// URL, when it carries no credential; otherwise use endpointSecret.' }),
        endpointSecret: secretReferenceSchema
          .optional()
          .meta({ description: 'The secret that holds the URL, when the URL carries a credential.' }),
      })
      .refine((s) => (s.endpoint === undefined) !== (s.endpointSecret === undefined), {
        error: 'an https subscriber needs exactly one of "endpoint" or "endpointSecret"',
      }),
    // --- Native delivery: PagerDuty and Opsgenie get their own APIs, with a stable key and a resolve. ---
    z.strictObject({
      protocol: z.literal('pagerduty').meta({
        description: 'PagerDuty through its Events API v2: one incident per dedup key, resolved by the resolve.',
      }),
      routingKeySecret: secretReferenceSchema.meta({
        description: 'The Events API v2 routing (integration) key, read at run time so a rotated key needs no deploy.',
      }),
      region: z
        .enum(['us', 'eu'], { error: 'expected "us" or "eu"' })
        .default('us')
        .meta({ description: 'The PagerDuty service region: events.pagerduty.com or events.eu.pagerduty.com.' }),
    }),
    z.strictObject({
      protocol: z
        .literal('opsgenie')
        .meta({ description: 'Opsgenie through its Alert API: one alert per alias, closed by the resolve.' }),
      apiKeySecret: secretReferenceSchema.meta({
        description: "The API integration's key (Authorization: GenieKey ...), read at run time like the routing key.",
      }),
      region: z
        .enum(['us', 'eu'], { error: 'expected "us" or "eu"' })
        .default('us')
        .meta({ description: 'Where the Opsgenie account lives: api.opsgenie.com or api.eu.opsgenie.com.' }),
    }),
    z.strictObject({
      protocol: z.literal('jsm').meta({
        description:
          "Jira Service Management alerts (the successor of Opsgenie's Alert API), paged by the delivery function",
      }),
      apiKeySecret: secretReferenceSchema.meta({
        description:
          'The secret holding the API key of a JSM API integration (Authorization: GenieKey ...), read at run time: rotating it is a secret update, no deploy',
      }),
      region: z.enum(['us', 'eu'], { error: 'expected "us" or "eu"' }).default('us').meta({
        description: 'Where the Jira site lives: us (api.atlassian.com) or eu (api.eu.atlassian.com)',
      }),
    }),
  ],
  { error: 'expected a subscriber with "protocol" email, sms, https, pagerduty, opsgenie or jsm' },
);
export type Subscriber = z.output<typeof subscriberSchema>;
/** A subscriber the delivery function calls itself, through the vendor's API, rather than through SNS. */
export type VendorSubscriber = Extract<Subscriber, { protocol: 'pagerduty' | 'opsgenie' | 'jsm' }>;
export const VENDOR_PROTOCOLS = ['pagerduty', 'opsgenie', 'jsm'] as const;

export function isVendorSubscriber(subscriber: Subscriber): subscriber is VendorSubscriber {
  return (VENDOR_PROTOCOLS as readonly string[]).includes(subscriber.protocol);
}

/**
 * An https subscriber whose URL is a secret (in Secrets Manager or Parameter Store). The delivery function posts to it,
 * reading the URL at run time: as an SNS subscription, the URL would be its Endpoint, which anyone allowed to list
 * subscriptions can read, and which changes only when the stack is deployed again.
 */
export type SecretWebhookSubscriber = Extract<Subscriber, { protocol: 'https' }> & {
  readonly endpointSecret: SecretReference;
};

/** A subscriber the delivery function calls, with a secret read at run time, rather than SNS. */
export type DeliveredSubscriber = VendorSubscriber | SecretWebhookSubscriber;

export function isDeliveredSubscriber(subscriber: Subscriber): subscriber is DeliveredSubscriber {
  return isVendorSubscriber(subscriber) || (subscriber.protocol === 'https' && subscriber.endpointSecret !== undefined);
}

// --- Grouping: one page per fleet incident over time. Alertmanager's route timers are the reference:
// https://prometheus.io/docs/alerting/latest/configuration/#route ---

/**
 * How clusters that fire the same rule become one fleet incident, paged once. Defaults: no wait before the first page
 * (a rule's m-of-n condition has already waited for evidence, and detection latency is the product's promise), joiners
 * announced at most every five minutes (Alertmanager's `group_interval` default), and a fleet incident takes in
 * clusters for its first 30 minutes, the window in which a late cause also takes over its symptoms' incident.
 * Alertmanager's groups take in alerts for as long as they live; a bound keeps the same rule failing on another cluster
 * later, which is as likely a second outage (the corpus has such pairs 35 to 50 minutes apart), a page of its own.
 */
export const groupingSchema = z
  .strictObject({
    wait: wholeMinutesSchema(
      GROUPING_BOUNDS.wait,
      "Alertmanager's group_wait: how long a new fleet incident waits for more clusters before its first page.",
    ).default('0m'),
    interval: wholeMinutesSchema(
      GROUPING_BOUNDS.interval,
      "Alertmanager's group_interval: how long after its last notification clusters that joined are announced.",
    ).default('5m'),
    joinWithin: wholeMinutesSchema(
      GROUPING_BOUNDS.joinWithin,
      'How long after it opened a fleet incident takes in clusters that start firing its rule, as an update.',
    ).default('30m'),
    by: z
      .array(z.union([labelNameSchema, z.enum(['account', 'region'])]))
      .default([])
      .meta({
        description:
          "Alertmanager's group_by: the labels (and account, region) whose values clusters must share to share a page. Clusters that differ in one of them never join one fleet incident, and each group's page has its own dedup key. Empty (the default): every cluster firing a rule shares its page.",
      }),
  })
  .prefault({})
  .meta({
    description:
      'How clusters that fire the same rule become one fleet incident, paged once, with Alertmanager-style timers.',
  });
export type GroupingConfig = z.output<typeof groupingSchema>;

// --- End of grouping. ---

const subscriptionSchema = z.strictObject({
  clusters: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .meta({ description: 'Only these clusters, when given (an SNS filter policy on the cluster attribute).' }),
  labels: z
    .record(labelNameSchema, z.union([labelValueSchema, z.array(labelValueSchema).min(1)]))
    .optional()
    .meta({
      description:
        'Only clusters whose labels have these values (one value, or a list of which any matches), when given: {"team": "payments"} for the payments team\'s PagerDuty service. With "clusters", a cluster must be named there and match here.',
    }),
  subscribers: z.array(subscriberSchema).min(1).meta({ description: 'Who hears them, and over what.' }),
  pipelineAlarms: z.boolean().default(true).meta({
    description:
      "Whether these subscribers hear the pipeline's own alarms (heartbeat, errors, dead letters: docs/deploy.md, Alarms). PagerDuty, Opsgenie and Jira Service Management subscribers hear them whatever clusters or labels the subscription selects, since a pipeline that stopped watches no team's clusters; email, SMS and https subscribers only without clusters or labels, as the alarms carry no cluster. false keeps them off this subscription's subscribers.",
  }),
});

/** How often clusters are read, and what arms minute-by-minute reads. */
export const pollSchema = z
  .strictObject({
    ingestionLag: wholeMinutesSchema(
      POLL_BOUNDS.ingestionLag,
      'CloudWatch needs time to ingest a minute; polls read up to now minus this lag.',
    ).default('2m'),
    every: wholeMinutesSchema(
      POLL_BOUNDS.every,
      'The slow cadence: how often every cluster is read when nothing is wrong (docs/benchmarks.md has the cost).',
    ).default('20m'),
    tripwire: z
      .strictObject({
        enabled: z.boolean().default(true).meta({
          description:
            'Without the alarms, every cluster is read on the slow cadence only (and every minute while it pages).',
        }),
        writeP99Seconds: z
          .number()
          .positive()
          .max(TRIPWIRE_BOUNDS.writeP99Seconds.max, {
            error: `expected at most ${TRIPWIRE_BOUNDS.writeP99Seconds.max} seconds: the apiserver's own request timeout`,
          })
          .default(1)
          .meta({ description: 'The PATCH request p99, in seconds, at which the tripwire arms minute reads.' }),
        errorRatio: z
          .number()
          .positive({ error: 'expected a share above 0 (0.05 for 5 %)' })
          .max(TRIPWIRE_BOUNDS.errorRatio.max, {
            error: 'expected a share of at most 1 (0.05 for 5 %), not a percentage',
          })
          .default(0.05)
          .meta({
            description: 'The share of requests answered 5xx or 429 (0.05 for 5 %) at which the tripwire arms.',
          }),
      })
      .prefault({})
      .meta({
        description:
          'One CloudWatch metric-math alarm per cluster arms minute-by-minute polling of that cluster until it and its pages clear: slow writes, a share of 5xx and 429, or a webhook failing closed, and missing data.',
      }),
  })
  .prefault({})
  .meta({ description: 'How often clusters are read, and what arms minute-by-minute reads.' });

export const deploymentConfigSchema = z.strictObject({
  $schema: z.string().optional().meta({ description: 'The JSON Schema this file is written against, for editors.' }),
  ops: opsSchema,
  poll: pollSchema,
  notifications: z
    .strictObject({
      renotify: wholeMinutesSchema(
        POLL_BOUNDS.renotify,
        'How often an incident still firing is announced again, as a reminder.',
      ).default('4h'),
      runbookBaseUrl: z
        .union([z.literal(''), z.url({ protocol: /^https?$/, error: 'expected an http(s):// URL, or "" for none' })])
        .default('')
        .meta({
          description:
            'Put before each rule\'s runbook path (docs/runbooks/RULE-ID.md) so notifications link it: where your copy of the repository is served. "" leaves the path as it is.',
        }),
    })
    .prefault({})
    .meta({ description: 'What every notification carries beyond its evidence.' }),
  rules: z
    .strictObject({
      overrides: ruleOverridesSchema
        .default({})
        .meta({ description: 'Changes to rules on every cluster, by rule id: enable, severity, params, hold-down.' }),
      custom: z
        .array(ruleSchema)
        .default([])
        .meta({ description: 'Rules of your own, beside the default rule set (docs/rules.md, Writing a rule).' }),
    })
    .prefault({})
    .meta({ description: 'The rule set: the default rules, changed by overrides, and rules of your own.' }),
  clusters: z
    .array(clusterSchema)
    .min(1, { error: 'expected at least one cluster to watch' })
    .meta({ description: 'The EKS clusters to watch.' }),
  subscriptions: z
    .strictObject({
      paging: z
        .array(subscriptionSchema)
        .default([])
        .meta({ description: 'The paging topic: pages, their updates and their resolves.' }),
      notice: z.array(subscriptionSchema).default([]).meta({ description: 'The notice topic: tickets.' }),
    })
    .prefault({})
    .meta({
      description:
        'Who hears what: pages (and their updates and resolves) on the paging topic, tickets on the notice topic.',
    }),
  digest: z
    .strictObject({
      recipients: z
        .array(z.email({ error: 'expected an email address' }))
        .default([])
        .meta({ description: 'Who gets the weekly digest by email; none, no digest is sent.' }),
      day: z
        .enum(['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'])
        .default('MON')
        .meta({ description: 'The day the weekly digest goes out, in timeZone.' }),
      time: z
        .string()
        .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: 'expected a 24-hour time like 09:00' })
        .default('09:00')
        .meta({ description: 'The time the weekly digest goes out, 24-hour, in timeZone.' }),
      timeZone: z
        .string()
        .refine(isTimeZone, { error: 'expected an IANA time zone like Europe/Berlin' })
        .default('UTC')
        .meta({ description: "The team's IANA time zone: the digest's week and times are in it." }),
      nearMissMargin: z
        .number()
        .gt(0)
        .lt(1)
        .default(0.2)
        .meta({ description: 'How close to a threshold counts as a near miss, as a share of the threshold.' }),
    })
    .prefault({})
    .meta({ description: 'The weekly digest: what fired, what was noisy, what nearly fired.' }),
  // --- Grouping. ---
  grouping: groupingSchema,
  dashboard: z
    .strictObject({
      enabled: z.boolean().default(false).meta({
        description:
          "The CloudWatch dashboard of the pipeline and the clusters, and the poller metrics only it reads. Off by default: it costs $3.00 a month beyond the account's 3 free dashboards, plus $0.30 a month for each of the 8 poller metrics no alarm reads. Pages, the alarms and the weekly digest do not need it.",
      }),
    })
    .prefault({})
    .meta({ description: 'The CloudWatch dashboard (docs/deploy.md, What it costs).' }),
  selfMonitoring: z
    .strictObject({
      earlyWarnings: z.boolean().default(true).meta({
        description:
          'Page on throttled poller runs and on polls near the timeout, before polls fail. Without them, a poller that gets slow pages once its polls fail (PollerErrors), stop (PollerHeartbeat) or are dead-lettered. $0.20 a month.',
      }),
      externalHeartbeat: z
        .strictObject({
          urlSecret: secretReferenceSchema.meta({
            description:
              'The secret or SecureString parameter (or its JSON field) that holds the URL to ping, which often carries a token: an Opsgenie or Jira Service Management heartbeat ping URL, a healthchecks-style check URL. Read by the poller at run time, never put in the template.',
          }),
          authorizationSecret: secretReferenceSchema.optional().meta({
            description:
              'A secret or SecureString parameter whose value is sent as the Authorization header of each ping, where the service wants one: "GenieKey <API key>" for an Opsgenie heartbeat.',
          }),
        })
        .optional()
        .meta({
          description:
            'A heartbeat outside AWS: every poll that did its job sends a GET to this URL, so that a service in another place pages when the pipeline, its account or its Region goes dark (docs/operating.md). A ping that fails is logged and never fails the poll.',
        }),
    })
    .prefault({})
    .meta({ description: 'The alarms on the pipeline itself (docs/deploy.md, Self-monitoring), each $0.10 a month.' }),
  encryption: z
    .strictObject({
      key: z
        .enum(['customer-managed', 'aws-managed'], { error: 'expected "customer-managed" or "aws-managed"' })
        .default('customer-managed')
        .meta({
          description:
            "customer-managed: one KMS key of the deployment, with a key policy that names each service allowed to use it, for $1.00 a month and its requests. aws-managed: each service's own key, for nothing; the paging topic is then not encrypted at rest, because CloudWatch alarms cannot publish to a topic encrypted with the AWS managed key (docs/deploy.md, What it costs).",
        }),
    })
    .prefault({})
    .meta({ description: 'What encrypts the table, the topics, the dead-letter queue and the logs at rest.' }),
  maintenance: z
    .array(
      z.strictObject({
        clusters: z
          .array(z.string().min(1))
          .min(1)
          .optional()
          .meta({ description: 'The clusters the window covers; unset, every cluster.' }),
        from: isoSchema.meta({ description: 'When the window opens, ISO-8601 UTC like 2026-03-04T09:00:00Z.' }),
        to: isoSchema.meta({ description: 'When the window closes, ISO-8601 UTC; later than from.' }),
        reason: z.string().min(1).meta({ description: 'Why the window is there, kept with what it mutes.' }),
        author: z
          .string()
          .min(1)
          .optional()
          .meta({ description: 'Whose decision it is, as a run-time silence records it.' }),
      }),
    )
    .default([])
    .meta({
      description:
        "Maintenance windows: a window mutes what each rule's maintenance policy lets it mute (docs/rules.md), and never a severe, sustained outage.",
    }),
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
      ...DEFAULT_RULES.map((rule) => ({ file: `shared/engine/rules/${rule.id}.ts`, path: [] })),
      ...custom.map((_, index) => ({ file, path: ['rules', 'custom', index] })),
    ],
  );
}

/** Validate a deployment configuration: its shape, then everything that refers to something else. */
export function loadConfig(value: unknown, file: string): LoadedConfig {
  checkFleetSize(value, file);
  checkConfigStrings(value, file);
  const parsed = parseWith(deploymentConfigSchema, value, file);
  const ruleSet = compileRuleSet(parsed.rules.custom, file);
  const problems: InputProblem[] = [...ruleSet.checkOverrides(parsed.rules.overrides, ['rules', 'overrides'])];
  const identities = assignDisplayNames(parsed.clusters, parsed.ops);
  problems.push(...identities.problems);
  const clusters = parsed.clusters.map((cluster, index) => ({
    ...cluster,
    displayName: identities.displayNames[index] ?? cluster.name,
  }));
  clusters.forEach((cluster, index) => {
    problems.push(...ruleSet.checkOverrides(cluster.overrides, ['clusters', index, 'overrides']));
  });
  const names = new Set(identities.displayNames);
  /** A cluster a subscription or a window names, by display name or by an EKS name no other cluster shares. */
  const resolve = (name: string, path: readonly PropertyKey[]): string => {
    const found = lookUpCluster(name, clusters);
    if ('found' in found) return found.found;
    const message =
      'ambiguous' in found
        ? ambiguousClusterMessage(name, found.ambiguous)
        : `unknown cluster "${name}"${didYouMean(name, names)}`;
    problems.push({ path: jsonPath(path), message });
    return name;
  };
  const config: DeploymentConfig = {
    ...parsed,
    clusters,
    subscriptions: {
      paging: parsed.subscriptions.paging.map((subscription, index) =>
        withClusters(subscription, (name, at) => resolve(name, ['subscriptions', 'paging', index, 'clusters', at])),
      ),
      notice: parsed.subscriptions.notice.map((subscription, index) =>
        withClusters(subscription, (name, at) => resolve(name, ['subscriptions', 'notice', index, 'clusters', at])),
      ),
    },
    maintenance: parsed.maintenance.map((window, index) =>
      withClusters(window, (name, at) => resolve(name, ['maintenance', index, 'clusters', at])),
    ),
  };
  problems.push(...labelProblems(config));
  config.maintenance.forEach((window, index) => {
    if (Date.parse(window.to) <= Date.parse(window.from)) {
      problems.push({ path: jsonPath(['maintenance', index, 'to']), message: 'must be later than "from"' });
    }
  });
  if (problems.length > 0) throw new InputError(file, problems);
  return { config, ruleSet };
}

/** What names clusters, with each name replaced by the display name it resolves to. */
function withClusters<T extends { readonly clusters?: readonly string[] | undefined }>(
  item: T,
  resolve: (name: string, at: number) => string,
): T {
  return item.clusters ? { ...item, clusters: item.clusters.map(resolve) } : item;
}

/**
 * What refers to labels must name ones the clusters carry: a `grouping.by` or a subscription's label that no cluster
 * has would group everything together or route nothing, without a word. Each problem suggests the nearest known name.
 */
function labelProblems(config: DeploymentConfig): InputProblem[] {
  const values = new Map<string, Set<string>>();
  for (const cluster of config.clusters) {
    for (const [name, value] of Object.entries(clusterLabels(cluster, config.ops))) {
      values.set(name, (values.get(name) ?? new Set()).add(value));
    }
  }
  const names = [...values.keys()].filter((name) => name !== 'cluster');
  const unknownLabel = (name: string) =>
    `no cluster has the label "${name}": ${suggestion(name, names)} (a cluster's "labels", or account, region)`;
  const problems: InputProblem[] = config.grouping.by.flatMap((name, index) =>
    values.has(name) ? [] : [{ path: jsonPath(['grouping', 'by', index]), message: unknownLabel(name) }],
  );
  for (const topic of ['paging', 'notice'] as const) {
    config.subscriptions[topic].forEach((subscription, index) => {
      const at = ['subscriptions', topic, index, 'labels'];
      const before = problems.length;
      for (const [name, wanted] of Object.entries(subscription.labels ?? {})) {
        const known = values.get(name);
        if (!known) {
          problems.push({ path: jsonPath([...at, name]), message: unknownLabel(name) });
          continue;
        }
        for (const value of typeof wanted === 'string' ? [wanted] : wanted) {
          if (known.has(value)) continue;
          const message = `no cluster has ${name}=${JSON.stringify(value)}: ${suggestion(value, [...known])}`;
          problems.push({ path: jsonPath([...at, name]), message });
        }
      }
      // Only when every label and value is known: "matches nothing" would repeat the typo's problem less usefully.
      if (problems.length === before && subscription.labels && subscribedClusters(subscription, config)?.length === 0) {
        problems.push({ path: jsonPath(at), message: 'no configured cluster matches both "clusters" and "labels"' });
      }
    });
  }
  return problems;
}

export function parseConfigText(text: string, file: string): LoadedConfig {
  return loadConfig(parseJson(text, file), file);
}
