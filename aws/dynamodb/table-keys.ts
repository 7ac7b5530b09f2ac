import { DAY_MS } from '../../shared/time.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/**
 * The layout of the one table the pipeline keeps its state in (keys and index from `TABLE_SCHEMA`: pk, sk; GSI
 * `byDay` on day, at; TTL on expiresAt). Every key and every day-index value is built here, so that a reader and a
 * writer of an item cannot disagree on where it is:
 * - `POLL`/`CURSOR`: which step is claimed (by whom, until when) and which is done (the step ledger).
 * - `STEP`/`<at>` (+ `<at>#<owner>#<part>`): a step's outcome, written before it is applied: the write-ahead record
 *   that lets any invocation finish a step whose writer died (the step ledger). The header holds the outcome itself
 *   when it fits, in gzipped parts otherwise (0.1.0 and earlier wrote parts of the JSON itself, still read).
 * - `STEP`/`<at>#saved`: how many of the step's changed incidents, in order, are saved, marked every
 *   `INCIDENTS_PER_MARK` (shared/pipeline/apply-step.ts), so that a roll-forward resumes there. Releases before 0.2.0
 *   neither write nor read it.
 * - `OPEN`/`<incident id>`: open incidents, read with a consistent query every poll; each expires the retention
 *   period after its last change (an incident of a cluster no longer configured is resolved at the next poll).
 * - `INCIDENT`/`<incident id>`: resolved incidents (day `INCIDENT#<resolved day>`).
 * - `OUTBOX`/`<notification id>`: every notification; day `PENDING` until delivered, then
 *   `NOTIFICATION#<day it was raised>`.
 * - `POLLLOG`/`<at>#<owner>`: one record per poll, read by a range of its sort keys (not indexed: an index entry would
 *   be a second write every minute). Records of earlier releases also carry day `POLL#<day>`, which nothing reads.
 * - `SILENCE`/`<end as first set>#<id>`: silences added at run time, sorted by the end they were given, so that one
 *   query of the keys at or after a time reads the silences that may still hold then, and not those long over.
 * - `DELIVERY`/`N#<integration>#<notification id>`: a notification's delivery to a PagerDuty or Opsgenie integration
 *   (claimed, then delivered); `DELIVERY`/`I#<integration>#<incident key>`: whether that integration's incident was
 *   opened and whether its resolve has begun (the delivery ledger).
 * - `TRIPWIRE`/`<cluster>`: the state of a cluster's tripwire alarm as it last reported it; and
 *   `TRIPWIRE`/`<cluster>#node-churn`: minute polling armed by a termination that could be a repair, until it expires.
 * - `INSTANCE`/`<instance id>`: what the node events told of one EC2 instance (its cluster, when it began to
 *   terminate, why).
 * - `NODES#<cluster>`/`<minute>#<instance id>`: one node termination of a cluster, in the minute it began.
 * - `RESOLVED`/`<fleet incident id>`: a fleet incident resolved by hand (`sentinel incidents resolve`), read by every
 *   poll, which marks the incidents it covers.
 * - `SHARD`/`<at>#<shard>` (+ `<at>#<shard>#<owner>#<part>`): what a shard worker found on its clusters at a step
 *   (docs/scaling.md), its header the commit point, as a step's outcome has.
 *
 * How large each kind of item can grow, against DynamoDB's 400 KB (`ITEM_BYTES`, table-limits.ts), each tested at
 * its maximum on dynalite (test/aws/item-size-bounds.test.ts):
 * - `STEP` and `SHARD` parts: at most `PART_BYTES` of payload each, whatever the outcome or report; the headers hold
 *   a count and an owner, and a `STEP` header an outcome of at most `INLINE_JSON_BYTES` in place of parts.
 * - `OUTBOX`: a notification whose JSON is within `INLINE_JSON_BYTES` is stored whole in its item; a larger one (a
 *   fleet outage's, with every cluster's evidence) is gzipped into parts `OUTBOX`/`<id>#part#<n>` of at most
 *   `PART_BYTES`, written before the item that lists it as pending; `lastError` is cut to 1,000 characters.
 * - `OPEN` and `INCIDENT`: one incident of one cluster: its evidence holds one entry per condition of its rules.
 * - `POLLLOG`: counts, and lists cut to `POLL_RECORD_LIST_MAX` entries with a count of what was left out
 *   (shared/pipeline/poll-record.ts); the error is cut to 1,000 characters.
 * - `TRIPWIRE`/`<cluster>#node-churn`: the repairs set keeps the repairs of the last arming window and at most
 *   `REPAIRS_KEPT` of them, and its TTL moves with each repair.
 * - `INSTANCE`, `NODES#`, `TRIPWIRE`/`<cluster>`, `POLL`/`CURSOR`, `DELIVERY`, `STEP`/`<at>#saved`: a fixed set of
 *   short attributes.
 * - `SILENCE`: one silence, its reason bounded by the silence command.
 */
export const PARTITION = {
  cursor: 'POLL',
  step: 'STEP',
  open: 'OPEN',
  resolved: 'INCIDENT',
  outbox: 'OUTBOX',
  pollLog: 'POLLLOG',
  tripwire: 'TRIPWIRE',
  silence: 'SILENCE',
  delivery: 'DELIVERY',
  instance: 'INSTANCE',
  shard: 'SHARD',
  handResolution: 'RESOLVED',
} as const;

export type Partition = (typeof PARTITION)[keyof typeof PARTITION];

/** The primary key of an item. */
export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

const key = (pk: Partition, sk: string): ItemKey => ({
  [TABLE_SCHEMA.partitionKey]: pk,
  [TABLE_SCHEMA.sortKey]: sk,
});
const iso = (at: number) => new Date(at).toISOString();

export const CURSOR_KEY = key(PARTITION.cursor, 'CURSOR');
export const stepKey = (at: number) => key(PARTITION.step, iso(at));
/** Parts are keyed by their writer, so a competing writer of the same step can never splice into them. */
export const stepPartKey = (at: number, owner: string, part: number) =>
  key(PARTITION.step, `${iso(at)}#${owner}#${part}`);
/** How many of a step's changed incidents are saved; no writer is named `saved`, so no part can take this key. */
export const stepProgressKey = (at: number) => key(PARTITION.step, `${iso(at)}#saved`);
export const shardKey = (at: number, shard: number) => key(PARTITION.shard, `${iso(at)}#${shard}`);
export const shardPartKey = (at: number, shard: number, owner: string, part: number) =>
  key(PARTITION.shard, `${iso(at)}#${shard}#${owner}#${part}`);
export const openIncidentKey = (id: string) => key(PARTITION.open, id);
export const resolvedIncidentKey = (id: string) => key(PARTITION.resolved, id);
export const handResolutionKey = (group: string) => key(PARTITION.handResolution, group);
export const outboxKey = (id: string) => key(PARTITION.outbox, id);
/** The prefix of a notification's parts; numbered with leading zeros so that they sort in order. */
export const outboxPartsPrefix = (id: string) => `${id}#part#`;
export const outboxPartKey = (id: string, part: number) =>
  key(PARTITION.outbox, `${outboxPartsPrefix(id)}${String(part).padStart(4, '0')}`);
export const pollLogKey = (at: number, owner: string) => key(PARTITION.pollLog, `${iso(at)}#${owner}`);
export const tripwireKey = (cluster: string) => key(PARTITION.tripwire, cluster);
/** Expiring a silence early keeps its key: its sort key is the end it was given, never earlier than its real end. */
export const silenceKey = (givenEnd: number, id: string) => key(PARTITION.silence, `${iso(givenEnd)}#${id}`);
/** The lowest sort key of a silence that ends at or after `at`. */
export const silenceKeyFrom = (at: number) => iso(at);
export const notificationDeliveryKey = (integration: string, notification: string) =>
  key(PARTITION.delivery, `N#${integration}#${notification}`);
export const incidentDeliveryKey = (integration: string, incident: string) =>
  key(PARTITION.delivery, `I#${integration}#${incident}`);
/** Cluster names hold no `#` (EKS allows letters, digits, `-` and `_`), so the cluster is what precedes it. */
export const nodeChurnTripwireKey = (cluster: string) => key(PARTITION.tripwire, `${cluster}#node-churn`);
export const clusterOfTripwireKey = (sk: string) => sk.split('#')[0] ?? sk;
export const instanceKey = (instanceId: string) => key(PARTITION.instance, instanceId);
/** A cluster's terminations have a partition of their own: the poller reads one cluster's minutes at a time. */
export const nodeChurnPartition = (cluster: string) => `NODES#${cluster}`;
export const terminationKey = (cluster: string, at: number, instanceId: string): ItemKey => ({
  [TABLE_SCHEMA.partitionKey]: nodeChurnPartition(cluster),
  [TABLE_SCHEMA.sortKey]: `${iso(at)}#${instanceId}`,
});

/** The UTC day of a time, as the day index files items under. */
export const dayOf = (time: number | string) => new Date(time).toISOString().slice(0, 10);

/** The UTC days from the one `from` falls on up to (not including) the one that starts at or after `end`. */
export function daysFrom(from: number, end: number): string[] {
  const days: string[] = [];
  for (let day = Date.parse(dayOf(from)); day < end; day += DAY_MS) days.push(dayOf(day));
  return days;
}

/** The attributes that file an item in the `byDay` index: under `day`, in the order of `at`. */
export const dayIndexEntry = (day: string, at: string) => ({
  [TABLE_SCHEMA.dayIndex.partitionKey]: day,
  [TABLE_SCHEMA.dayIndex.sortKey]: at,
});

/** Values of the `byDay` index's partition key: what a query of one day of one kind of item asks for. */
export const DAY_INDEX = {
  /** Notifications not yet delivered, whatever day they were raised. */
  pending: 'PENDING',
  resolvedOn: (day: string) => `INCIDENT#${day}`,
  raisedOn: (day: string) => `NOTIFICATION#${day}`,
} as const;
