import * as z from 'zod';
import type { CountedTermination, InstanceRecord } from '../../shared/churn/node-churn.ts';
import { TERMINATION_REASONS } from '../../shared/churn/node-termination.ts';
import type { Comparator } from '../../shared/engine/condition.ts';
import type { Evidence, EvidenceCondition } from '../../shared/engine/evaluate-condition.ts';
import type { Incident } from '../../shared/engine/incident.ts';
import type { NearMiss } from '../../shared/engine/near-miss.ts';
import type { Notification, NotificationKind, NotificationReason } from '../../shared/engine/notification.ts';
import type { Severity } from '../../shared/engine/rule.ts';
import { type InputProblem, SentinelError } from '../../shared/errors.ts';
import type { NotificationRecord, PollRecord, StepClaim, StepOutcome } from '../../shared/pipeline/ports.ts';
import type { ShardReport } from '../../shared/pipeline/shards.ts';
import type { Silence } from '../../shared/pipeline/silence.ts';
import { problemsOf } from '../../shared/schema-errors.ts';
import type { ItemKey } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/**
 * Codecs of the table's items: what a store reads back is checked against the shape it wrote, so that an item
 * written by another version, or edited by hand, fails where it is read, naming the item, rather than as an
 * `undefined` three calls later. Domain values are loose objects: a field this version does not know is kept, not
 * dropped. Each schema is typed by the domain type it decodes, so that the compiler flags a field the engine adds.
 */

/** An item of the table that does not have the shape its kind of item has. */
export class MalformedItemError extends SentinelError {
  constructor(
    readonly key: ItemKey,
    readonly problems: readonly InputProblem[],
  ) {
    super(
      `table item ${JSON.stringify(key)} cannot be read:\n${problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n')}`,
    );
  }
}

/** Decode an item (or a value stored in one) with its codec, or throw a MalformedItemError naming the item. */
export function decodeItem<T>(codec: z.ZodType<T>, item: Record<string, unknown>, key: ItemKey = keyOf(item)): T {
  const result = codec.safeParse(item);
  if (!result.success) throw new MalformedItemError(key, problemsOf(result.error));
  return result.data;
}

/** Decode a value kept as JSON text across items (a step's outcome in its parts), naming the item it belongs to. */
export function decodeJson<T>(codec: z.ZodType<T>, text: string, key: ItemKey): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new MalformedItemError(key, [{ path: '$', message: `not valid JSON: ${reason}` }]);
  }
  const result = codec.safeParse(value);
  if (!result.success) throw new MalformedItemError(key, problemsOf(result.error));
  return result.data;
}

function keyOf(item: Record<string, unknown>): ItemKey {
  return { pk: String(item[TABLE_SCHEMA.partitionKey]), sk: String(item[TABLE_SCHEMA.sortKey]) };
}

/** Every member of a string union, as a zod enum: listing them as an object makes the compiler flag a missing one. */
const oneOf = <T extends string>(members: { readonly [K in T]: K }) => z.enum(members);

const comparator = oneOf<Comparator>({ '>': '>', '>=': '>=', '<': '<', '<=': '<=' });
const severity = oneOf<Severity>({ page: 'page', ticket: 'ticket' });
const stepClaim = oneOf<StepClaim>({ claimed: 'claimed', done: 'done', busy: 'busy', stale: 'stale' });
const notificationKind = oneOf<NotificationKind>({
  page: 'page',
  ticket: 'ticket',
  update: 'update',
  resolve: 'resolve',
});
const notificationReason = oneOf<NotificationReason>({
  opened: 'opened',
  'maintenance-ended': 'maintenance-ended',
  'maintenance-override': 'maintenance-override',
  merged: 'merged',
  escalated: 'escalated',
  joined: 'joined',
  'new-symptom': 'new-symptom',
  'cause-identified': 'cause-identified',
  reminder: 'reminder',
  resolved: 'resolved',
  'resolved-by-hand': 'resolved-by-hand',
});
const notificationStatus = oneOf<NotificationRecord['status']>({
  pending: 'pending',
  sending: 'sending',
  delivered: 'delivered',
});

const CONDITION_KINDS: ReadonlySet<unknown> = new Set(['threshold', 'sustained', 'window', 'change', 'absent']);
const evidence: z.ZodType<Evidence> = z.looseObject({
  what: z.string(),
  over: z.string(),
  observed: z.number(),
  op: comparator,
  threshold: z.number(),
  unit: z.string(),
  passed: z.boolean(),
  // Evidence stored before it named its condition has none. One of a kind this version does not know is dropped
  // rather than failing its incident: the graph then finds the condition by the evidence's text, as it used to.
  condition: z
    .custom<EvidenceCondition>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        'of' in value &&
        CONDITION_KINDS.has((value as { kind?: unknown }).kind),
    )
    .optional()
    .catch(undefined),
});

const incident: z.ZodType<Incident> = z.looseObject({
  id: z.string(),
  cluster: z.string(),
  rule: z.string(),
  severity,
  status: z.enum(['open', 'resolved']),
  openedAt: z.string(),
  resolvedAt: z.string().optional(),
  mergedInto: z.string().optional(),
  symptoms: z.array(z.string()),
  clearSince: z.string().optional(),
  flaps: z.number(),
  notifiedAt: z.string().optional(),
  lastNotifiedAt: z.string().optional(),
  paged: z.boolean(),
  notifications: z.number(),
  reminders: z.number(),
  evidence: z.record(z.string(), z.array(evidence)),
  // Fleet grouping and maintenance came later: optional, so that incidents stored before them still decode.
  group: z.looseObject({ id: z.string(), openedAt: z.string() }).optional(),
  recoveredAt: z.string().optional(),
  firingSince: z.string().optional(),
  mutedBy: z
    .looseObject({ silence: z.string().optional(), reason: z.string(), author: z.string(), until: z.string() })
    .optional(),
  // Resolved by hand: optional, so that incidents stored before `sentinel incidents resolve` still decode.
  resolvedBy: z.looseObject({ at: z.string(), author: z.string(), reason: z.string() }).optional(),
});

const notification: z.ZodType<Notification> = z.looseObject({
  id: z.string(),
  at: z.string(),
  kind: notificationKind,
  reason: notificationReason,
  severity: z.enum(['critical', 'warning']),
  rule: z.string(),
  title: z.string(),
  summary: z.string(),
  clusters: z.array(z.string()),
  clustersTotal: z.number().int().optional(),
  incidents: z.array(z.string()),
  openedAt: z.string(),
  symptoms: z.array(z.string()),
  changes: z.array(z.string()),
  causalChain: z.array(z.array(z.string())),
  evidence: z.array(
    z.looseObject({ cluster: z.string(), incident: z.string(), rule: z.string(), items: z.array(evidence) }),
  ),
  hints: z.array(z.looseObject({ text: z.string(), source: z.string() })),
  runbook: z.string(),
  group: z.string().optional(),
});
/** A notification as the outbox stores it and the paging topic's delivery queue carries it. */
export const notificationSchema = notification;

const nearMiss: z.ZodType<NearMiss> = z.looseObject({
  cluster: z.string(),
  rule: z.string(),
  closest: evidence,
  distance: z.number(),
});

const pollRecord: z.ZodType<PollRecord> = z.looseObject({
  at: z.number(),
  owner: z.string(),
  claim: stepClaim,
  startedAt: z.number(),
  lateMs: z.number(),
  durationMs: z.number(),
  clusters: z.number(),
  polled: z.number(),
  shards: z.number().optional(),
  metricsRequested: z.number(),
  findings: z.number(),
  created: z.number(),
  delivered: z.number(),
  deliveryFailures: z.number(),
  unreadableClusters: z.number(),
  blindTripwires: z.array(z.string()).optional(),
  blindTripwiresOmitted: z.number().optional(),
  nearMisses: z.array(nearMiss),
  nearMissesOmitted: z.number().optional(),
  quarantinedSteps: z.array(z.number()).optional(),
  unfinishedStep: z.object({ step: z.number(), saved: z.number(), changed: z.number() }).optional(),
  error: z.string().optional(),
});

/** `POLL`/`CURSOR`; absent until the first claim. */
export const cursorItem = z.object({
  claimedStep: z.number().optional(),
  owner: z.string().optional(),
  leaseUntil: z.number().optional(),
  doneStep: z.number().optional(),
});

/** A header that says how many parts hold its payload and whose they are. */
const partsHeaderItem = z.object({ parts: z.number().int().positive(), owner: z.string() });

/** One slice of a payload's gzipped JSON (gzipped-parts.ts): a large notification's, a shard's report, a step's outcome. */
export const gzippedPartItem = z.object({ payload: z.instanceof(Uint8Array) });

/**
 * `STEP`/`<at>`: the commit point of a step's outcome. An outcome of at most `INLINE_JSON_BYTES` of JSON (a quiet
 * step's, and most others) is held in the header itself (`payload`); a larger one in gzipped parts, which the header
 * counts (`gzippedParts`). Earlier releases wrote the JSON itself in parts (`parts`), still read until they expire.
 */
export const stepHeaderItem = z.union([
  z.object({ payload: z.string(), owner: z.string() }),
  z.object({ gzippedParts: z.number().int().positive(), owner: z.string() }),
  partsHeaderItem,
]);

/** `STEP`/`<at>#saved`: how many of a step's changed incidents are saved. */
export const stepProgressItem = z.object({ savedIncidents: z.number().int().nonnegative() });

/** `STEP`/`<at>#<owner>#<part>` of an earlier release: one slice of the outcome's JSON itself. */
export const stepPartItem = z.object({ payload: z.string() });

/** The JSON the parts of a step add up to. */
export const stepOutcome: z.ZodType<StepOutcome> = z.object({
  at: z.number(),
  changed: z.array(incident),
  notifications: z.array(notification),
});

/** `OPEN`/`<id>` and `INCIDENT`/`<id>`. */
export const incidentItem = z.object({ incident });

/**
 * `OUTBOX`/`<id>`; a missing attempt count reads as none. The notification is in the item, or in
 * `notificationParts` parts of its own when it is too large for one item (outbox.ts).
 */
export const outboxItem = z.object({
  notification: notification.optional(),
  notificationParts: z.number().int().positive().optional(),
  status: notificationStatus,
  attempts: z.number().optional(),
  deliveredAt: z.number().optional(),
  lastError: z.string().optional(),
});

/** `POLLLOG`/`<at>#<owner>`. */
export const pollLogItem = z.object({ record: pollRecord });

/**
 * `TRIPWIRE`/`<cluster>` and `TRIPWIRE`/`<cluster>#node-churn`. A node-churn tripwire is armed until `armedUntil`;
 * one written before that attribute was armed until its TTL. An alarm's state carries `changedAt`, which the slow
 * cycle's refresh compares; a node-churn tripwire has none.
 */
export const tripwireItem = z.object({
  sk: z.string(),
  state: z.string(),
  changedAt: z.number().optional(),
  expiresAt: z.number(),
  armedUntil: z.number().optional(),
});

const silence: z.ZodType<Silence> = z.looseObject({
  id: z.string(),
  cluster: z.string().optional(),
  rule: z.string().optional(),
  // Absent on a silence stored before matchers, which names `cluster` (and `rule`) alone.
  matchers: z.array(z.looseObject({ name: z.string(), op: z.enum(['=', '!=']), value: z.string() })).optional(),
  includePages: z.boolean().optional(),
  from: z.number(),
  to: z.number(),
  reason: z.string(),
  author: z.string(),
  expired: z.looseObject({ at: z.number(), by: z.string() }).optional(),
  extended: z.array(z.looseObject({ at: z.number(), by: z.string(), from: z.number() })).optional(),
});

/** `RESOLVED`/`<fleet incident id>`. */
export const handResolutionItem = z.object({
  resolution: z.looseObject({
    group: z.string(),
    incidents: z.array(z.string()),
    at: z.string(),
    author: z.string(),
    reason: z.string(),
  }),
});

/** `SILENCE`/`<given end>#<id>`. */
export const silenceItem = z.object({ silence });
const terminationReason = z.enum(TERMINATION_REASONS);

/** `INSTANCE`/`<instance id>`: what the node events told of one instance. */
export const instanceItem = z.object({
  sk: z.string(),
  cluster: z.string().optional(),
  terminatingAt: z.number().optional(),
  reason: terminationReason.optional(),
  reasonAt: z.number().optional(),
}) satisfies z.ZodType<Omit<InstanceRecord, 'instanceId'> & { sk: string }>;

/** `NODES#<cluster>`/`<minute>#<instance id>`: one counted termination. */
export const terminationItem = z
  .object({ cluster: z.string(), instanceId: z.string(), minute: z.number(), reason: terminationReason })
  .transform(({ minute, ...rest }): CountedTermination => ({ ...rest, at: minute }));

/** `SHARD`/`<at>#<shard>`: the commit point of a shard's report, which says how many parts hold it and whose they are. */
export const shardHeaderItem = partsHeaderItem;

const finding = z.looseObject({
  cluster: z.string(),
  rule: z.string(),
  verdict: z.enum(['met', 'unmet', 'unknown', 'skipped']),
  evidence: z.array(evidence),
  lacking: z.array(z.string()),
});

/** The JSON the parts of a shard's report add up to. */
export const shardReport = z.object({
  at: z.number(),
  shard: z.number().int().nonnegative(),
  clusters: z.array(
    z.object({
      cluster: z.string(),
      findings: z.array(finding),
      severe: z.array(z.tuple([z.string(), z.string()])),
    }),
  ),
  metricsRequested: z.number(),
  unreadable: z.array(z.object({ clusters: z.array(z.string()), error: z.string() })),
  freshClusters: z.number(),
  blindTripwires: z.array(z.string()),
}) as unknown as z.ZodType<ShardReport>;
