import { z } from 'zod';
import { describeSeconds, durationOutOfRange, POLL_BOUNDS } from '../engine/bounds.ts';
import { DEFAULT_RULES } from '../engine/default-rules.ts';
import { durationSeconds, isDuration } from '../engine/duration.ts';
import { NODE_KINDS } from '../engine/hint-scope.ts';
import { type Rule, ruleOverridesSchema, ruleSchema } from '../engine/rule.ts';
import { RuleSet } from '../engine/rule-set.ts';
import { signalRecord } from '../engine/signal-schema.ts';
import { InputError, type InputProblem } from '../errors.ts';
import { didYouMean } from '../naming.ts';
import { jsonPath, parseJson, parseWith, stringsIn } from '../schema-errors.ts';
import { isIsoUtc } from '../time.ts';
import {
  autoScalingGroupNameSchema,
  clusterNameSchema,
  credentialIn,
  resolvedSyntaxIn,
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

/** Polls run on whole minutes, so their durations must be whole minutes too, within the bounds of what each is for. */
const wholeMinutesSchema = ({ minSeconds, maxSeconds }: { minSeconds: number; maxSeconds: number }) =>
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
      description: `whole minutes from ${describeSeconds(minSeconds)} to ${describeSeconds(maxSeconds)}`,
      pattern: WHOLE_DURATION.source,
    });
const isoSchema = z.string().refine(isIsoUtc, { error: 'expected an ISO-8601 UTC time like 2026-03-04T09:00:00Z' });

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A CloudWatch metric that carries one signal, for Prometheus-scraped metrics such as Karpenter's. */
export const customMetricSchema = z.strictObject({
  namespace: z.string().min(1).max(255),
  metricName: z.string().min(1).max(255),
  dimensions: z.record(z.string().min(1), z.string().min(1)).default({}),
  stat: z.enum(['Sum', 'Average', 'Maximum', 'Minimum', 'SampleCount']),
});
export type CustomMetric = z.output<typeof customMetricSchema>;

const accountIdSchema = z.string().regex(/^\d{12}$/, { error: 'expected a 12-digit AWS account id' });
const regionSchema = z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, { error: 'expected an AWS region like eu-west-1' });

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
  .prefault({});

export const clusterSchema = z.strictObject({
  name: clusterNameSchema,
  accountId: accountIdSchema.optional(),
  region: regionSchema.optional(),
  source: z
    .strictObject({
      /** `eks`: AWS/EKS vended control-plane metrics and Container Insights; `custom`: only the metrics listed below. */
      profile: z.enum(['eks', 'custom'], { error: 'expected "eks" or "custom"' }).default('eks'),
      /**
       * Auto Scaling group names of the cluster's node groups: their termination events name the cluster even when EC2
       * no longer describes the instance (node churn is counted from events, see docs/deploy.md), and hints name them.
       */
      nodeGroups: z.array(autoScalingGroupNameSchema).default([]),
      containerInsights: z.boolean().default(true),
      /** Signals read from a custom namespace instead of (or on top of) the profile. */
      custom: signalRecord(customMetricSchema).default({}),
      // --- Hints (issue 15): how the cluster's nodes run, so its pages show only the hints that apply. ---
      nodes: nodeKindsSchema.optional(),
    })
    .prefault({}),
  overrides: ruleOverridesSchema.default({}),
});

/** A secret in Secrets Manager, and the field of its JSON that holds the value when it is not the whole string. */
const secretReferenceSchema = z.strictObject({
  secretName: secretNameSchema,
  jsonField: z.string().min(1).max(256).optional(),
});
export type SecretReference = z.output<typeof secretReferenceSchema>;

const subscriberSchema = z.discriminatedUnion(
  'protocol',
  [
    z.strictObject({ protocol: z.literal('email'), endpoint: z.email({ error: 'expected an email address' }) }),
    z.strictObject({
      protocol: z.literal('sms'),
      endpoint: z
        .string()
        .regex(/^\+[1-9]\d{6,14}$/, { error: 'expected a phone number in E.164 form, like +4915112345678' }),
    }),
    z
      .strictObject({
        protocol: z.literal('https'),
        endpoint: z
          .url({ protocol: /^https$/, error: 'expected an https:// URL' })
          .superRefine((url, context) => {
            const credential = credentialIn(url);
            if (credential) {
              context.addIssue({
                code: 'custom',
                message: `this URL carries a credential (${credential}): store the URL in Secrets Manager and use "endpointSecret" instead, so it never lands in the template, a bundle or a log`,
              });
            }
          })
          .optional(),
        endpointSecret: secretReferenceSchema.optional(),
      })
      .refine((s) => (s.endpoint === undefined) !== (s.endpointSecret === undefined), {
        error: 'an https subscriber needs exactly one of "endpoint" or "endpointSecret"',
      }),
    // --- Native delivery (issue 16): PagerDuty and Opsgenie get their own APIs, with a stable key and a resolve. ---
    z.strictObject({
      protocol: z.literal('pagerduty'),
      /** The Events API v2 routing (integration) key, read at run time so a rotated key needs no deploy. */
      routingKeySecret: secretReferenceSchema,
      /** The PagerDuty service region: events.pagerduty.com or events.eu.pagerduty.com. */
      region: z.enum(['us', 'eu'], { error: 'expected "us" or "eu"' }).default('us'),
    }),
    z.strictObject({
      protocol: z.literal('opsgenie'),
      /** The API integration's key (`Authorization: GenieKey ...`), read at run time like the routing key. */
      apiKeySecret: secretReferenceSchema,
      /** Where the Opsgenie account lives: api.opsgenie.com or api.eu.opsgenie.com. */
      region: z.enum(['us', 'eu'], { error: 'expected "us" or "eu"' }).default('us'),
    }),
  ],
  { error: 'expected a subscriber with "protocol" email, sms, https, pagerduty or opsgenie' },
);
export type Subscriber = z.output<typeof subscriberSchema>;
/** A subscriber the delivery function calls itself, through the vendor's API, rather than through SNS. */
export type VendorSubscriber = Extract<Subscriber, { protocol: 'pagerduty' | 'opsgenie' }>;
export const VENDOR_PROTOCOLS = ['pagerduty', 'opsgenie'] as const;

export function isVendorSubscriber(subscriber: Subscriber): subscriber is VendorSubscriber {
  return (VENDOR_PROTOCOLS as readonly string[]).includes(subscriber.protocol);
}

// --- Grouping (issue 13): one page per fleet incident over time. Alertmanager's route timers are the reference:
// https://prometheus.io/docs/alerting/latest/configuration/#route ---

/** Whole minutes: the poller evaluates one step a minute, so a finer grouping time could not be honoured. */
const GROUPING_BOUNDS = {
  /** Longer than an hour, a new outage's first page would wait longer than any rule takes to see it. */
  wait: { minSeconds: 0, maxSeconds: 3600 },
  /** At least a minute (one step); at most a day, the longest hold-down. */
  interval: { minSeconds: 60, maxSeconds: 86_400 },
  /** At least a minute; at most a day, past which a cluster that starts failing is a story of its own. */
  joinWithin: { minSeconds: 60, maxSeconds: 86_400 },
} as const;

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
    /** Alertmanager's `group_wait`: how long a new fleet incident waits for more clusters before its first page. */
    wait: wholeMinutesSchema(GROUPING_BOUNDS.wait).default('0m'),
    /** Alertmanager's `group_interval`: how long after its last notification clusters that joined are announced. */
    interval: wholeMinutesSchema(GROUPING_BOUNDS.interval).default('5m'),
    /** How long after it opened a fleet incident takes in clusters that start firing its rule, as an update. */
    joinWithin: wholeMinutesSchema(GROUPING_BOUNDS.joinWithin).default('30m'),
  })
  .prefault({});
export type GroupingConfig = z.output<typeof groupingSchema>;

// --- End of grouping. ---

const subscriptionSchema = z.strictObject({
  /** Only these clusters, when given (an SNS filter policy on the cluster attribute). */
  clusters: z.array(z.string().min(1)).min(1).optional(),
  subscribers: z.array(subscriberSchema).min(1),
});

/** How often clusters are read, and what arms minute-by-minute reads. */
export const pollSchema = z
  .strictObject({
    /** CloudWatch needs time to ingest a minute; polls read up to now minus this lag. */
    ingestionLag: wholeMinutesSchema(POLL_BOUNDS.ingestionLag).default('2m'),
    /** The slow cadence: how often every cluster is read when nothing is wrong (docs/benchmarks.md has the cost). */
    every: wholeMinutesSchema(POLL_BOUNDS.every).default('20m'),
    /**
     * One CloudWatch metric-math alarm per cluster (shared/pipeline/tripwire-alarm.ts) arms minute-by-minute polling
     * of that cluster until it and its pages clear: slow writes, a share of 5xx and 429, or a webhook failing closed,
     * and missing data.
     */
    tripwire: z
      .strictObject({
        /** Without the alarms, every cluster is read on the slow cadence only (and every minute while it pages). */
        enabled: z.boolean().default(true),
        writeP99Seconds: z
          .number()
          .positive()
          .max(60, { error: "expected at most 60 seconds: the apiserver's own request timeout" })
          .default(1),
        errorRatio: z
          .number()
          .positive({ error: 'expected a share above 0 (0.05 for 5 %)' })
          .max(1, { error: 'expected a share of at most 1 (0.05 for 5 %), not a percentage' })
          .default(0.05),
      })
      .prefault({}),
  })
  .prefault({});

export const deploymentConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  ops: opsSchema,
  poll: pollSchema,
  notifications: z
    .strictObject({
      renotify: wholeMinutesSchema(POLL_BOUNDS.renotify).default('4h'),
      runbookBaseUrl: z
        .union([z.literal(''), z.url({ protocol: /^https?$/, error: 'expected an http(s):// URL, or "" for none' })])
        .default(''),
    })
    .prefault({}),
  rules: z
    .strictObject({
      overrides: ruleOverridesSchema.default({}),
      custom: z.array(ruleSchema).default([]),
    })
    .prefault({}),
  clusters: z.array(clusterSchema).min(1, { error: 'expected at least one cluster to watch' }),
  /** Who hears what: pages (and their updates and resolves) on the paging topic, tickets on the notice topic. */
  subscriptions: z
    .strictObject({
      paging: z.array(subscriptionSchema).default([]),
      notice: z.array(subscriptionSchema).default([]),
    })
    .prefault({}),
  digest: z
    .strictObject({
      recipients: z.array(z.email({ error: 'expected an email address' })).default([]),
      /** When the weekly digest goes out, in the team's own time zone. */
      day: z.enum(['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN']).default('MON'),
      time: z
        .string()
        .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: 'expected a 24-hour time like 09:00' })
        .default('09:00'),
      timeZone: z
        .string()
        .refine(isTimeZone, { error: 'expected an IANA time zone like Europe/Berlin' })
        .default('UTC'),
      /** How close to a threshold counts as a near miss, as a share of the threshold. */
      nearMissMargin: z.number().gt(0).lt(1).default(0.2),
    })
    .prefault({}),
  // --- Grouping (issue 13). ---
  grouping: groupingSchema,
  /**
   * The CloudWatch dashboard of the pipeline and the clusters, and the poller metrics only it reads. Off by default:
   * it costs $3.00 a month beyond the account's 3 free dashboards, plus $0.30 a month for each of the 8 poller metrics
   * no alarm reads (docs/deploy.md, What it costs). Pages, the alarms and the weekly digest do not need it.
   */
  dashboard: z
    .strictObject({
      enabled: z.boolean().default(false),
    })
    .prefault({}),
  /**
   * What encrypts the table, the topics, the dead-letter queue and the logs at rest. `customer-managed` (the default):
   * one KMS key of the deployment, with a key policy that names each service allowed to use it, for $1.00 a month and
   * its requests. `aws-managed`: each service's own key, for nothing; the paging topic is then not encrypted at rest,
   * because CloudWatch alarms cannot publish to a topic encrypted with the AWS managed key (docs/deploy.md, What it
   * costs).
   */
  /** The alarms on the pipeline itself (docs/deploy.md, Self-monitoring), each $0.10 a month. */
  selfMonitoring: z
    .strictObject({
      /**
       * Page on throttled poller runs and on polls near the timeout, before polls fail. Without them, a poller that
       * gets slow pages once its polls fail (PollerErrors), stop (PollerHeartbeat) or are dead-lettered.
       */
      earlyWarnings: z.boolean().default(true),
      externalHeartbeat: z
        .strictObject({
          urlSecret: secretReferenceSchema.meta({
            description:
              'The Secrets Manager secret (or its JSON field) that holds the URL to ping, which often carries a token: an Opsgenie or Jira Service Management heartbeat ping URL, a healthchecks-style check URL. Read by the poller at run time, never put in the template.',
          }),
          authorizationSecret: secretReferenceSchema.optional().meta({
            description:
              'A secret whose value is sent as the Authorization header of each ping, where the service wants one: "GenieKey <API key>" for an Opsgenie heartbeat.',
          }),
        })
        .optional()
        .meta({
          description:
            'A heartbeat outside AWS: every poll that did its job sends a GET to this URL, so that a service in another place pages when the pipeline, its account or its Region goes dark (docs/operating.md). A ping that fails is logged and never fails the poll.',
        }),
    })
    .prefault({}),
  encryption: z
    .strictObject({
      key: z
        .enum(['customer-managed', 'aws-managed'], { error: 'expected "customer-managed" or "aws-managed"' })
        .default('customer-managed'),
    })
    .prefault({}),
  /**
   * Maintenance windows: a window mutes what each rule's maintenance policy lets it mute (docs/rules.md), and never a
   * severe, sustained outage. `author` says whose decision it is, as a run-time silence will.
   */
  maintenance: z
    .array(
      z.strictObject({
        clusters: z.array(z.string().min(1)).min(1).optional(),
        from: isoSchema,
        to: isoSchema,
        reason: z.string().min(1),
        author: z.string().min(1).optional(),
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
  const injected = stringsIn(value).flatMap(({ path, text }) => {
    const problem = resolvedSyntaxIn(text);
    return problem ? [{ path: jsonPath(path), message: problem }] : [];
  });
  if (injected.length > 0) throw new InputError(file, injected);
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
  for (const topic of ['paging', 'notice'] as const) {
    config.subscriptions[topic].forEach((subscription, index) => {
      subscription.clusters?.forEach((name, at) => {
        if (!names.has(name)) {
          problems.push({
            path: jsonPath(['subscriptions', topic, index, 'clusters', at]),
            message: `unknown cluster "${name}"${didYouMean(name, names)}`,
          });
        }
      });
    });
  }
  config.maintenance.forEach((window, index) => {
    window.clusters?.forEach((name, at) => {
      if (!names.has(name)) {
        problems.push({
          path: jsonPath(['maintenance', index, 'clusters', at]),
          message: `unknown cluster "${name}"${didYouMean(name, names)}`,
        });
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
