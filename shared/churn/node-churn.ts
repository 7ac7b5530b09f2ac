import { clusterOfTags, couldBeRepair, type NodeClusters, type TerminationReason } from './node-termination.ts';

/** What one event says about one EC2 instance; every field but the instance is what that event knows. */
export interface InstanceObservation {
  readonly instanceId: string;
  readonly account: string;
  readonly region: string;
  /** The cluster, when the event itself tells it (an Auto Scaling group the configuration lists). */
  readonly cluster?: string;
  /** When the instance began to terminate (ms). */
  readonly terminatingAt?: number;
  /** Why, when the event says so, and when it said so (ms). */
  readonly reason?: TerminationReason;
  readonly reasonAt?: number;
  /** The instance reached `running`: the moment to record which cluster it belongs to. */
  readonly running?: boolean;
}

/** What is known of one instance, merged over every event about it. */
export interface InstanceRecord {
  readonly instanceId: string;
  readonly cluster?: string;
  /** When its termination began, as the first event that reported it said: the minute it counts in. */
  readonly terminatingAt?: number;
  readonly reason?: TerminationReason;
  readonly reasonAt?: number;
}

/** One node termination, counted in the minute it began. */
export interface CountedTermination {
  readonly cluster: string;
  readonly instanceId: string;
  /** The start of the minute (ms). */
  readonly at: number;
  readonly reason: TerminationReason;
}

/**
 * Where node events are merged and terminations counted. Both writes are idempotent: `observe` merges into the
 * instance's one record (the first termination time wins), and `count` puts the termination under a key made of its
 * cluster, minute and instance. A redelivered event, or a second event about the same termination (the lifecycle
 * action, then the terminate event, then EC2's own state changes), leaves one count.
 */
export interface NodeChurnLedger {
  observe(observation: InstanceObservation, now: number): Promise<InstanceRecord>;
  count(termination: CountedTermination, now: number): Promise<void>;
  /**
   * Note a termination that could be a repair; when it and the others noted make enough close together
   * (`repairsArmUntil`), poll the cluster every minute until then, as an armed tripwire does.
   */
  notePossibleRepair(termination: CountedTermination, now: number): Promise<void>;
}

/** The terminations of a cluster that began in [from, to). */
export interface NodeChurnReader {
  terminations(cluster: string, from: number, to: number): Promise<readonly CountedTermination[]>;
}

/** The tags of an instance, while EC2 still describes it. */
export interface InstanceDirectory {
  /** Undefined when EC2 no longer describes the instance; throws when the lookup itself fails. */
  tagsOf(instanceId: string, account: string, region: string): Promise<Readonly<Record<string, string>> | undefined>;
}

export type NodeEventOutcome =
  /** A termination of a watched cluster's node, counted (or counted again, with a better reason). */
  | 'counted'
  /** Merged into the instance's record; nothing to count yet. */
  | 'recorded'
  /** Its tags name no cluster: not a Kubernetes node. */
  | 'not-a-node'
  /** No event named its cluster and EC2 no longer describes it: a termination that cannot be placed. */
  | 'unplaced'
  /** A node of a cluster the configuration does not watch. */
  | 'unwatched';

export interface NodeEventResult {
  readonly outcome: NodeEventOutcome;
  readonly cluster?: string;
  readonly reason?: TerminationReason;
}

/** A spot interruption warning comes two minutes ahead; a warning older than this before the termination is stale. */
const WARNING_VALID_MS = 15 * 60_000;

export interface NodeEventDependencies {
  readonly ledger: NodeChurnLedger;
  readonly directory: InstanceDirectory;
  /** The watched clusters, as events name them. */
  readonly clusters: NodeClusters;
  readonly now: () => number;
}

/**
 * Merge one event into what is known of its instance and count the termination once its cluster and start are
 * known. An instance whose cluster no event named is looked up in EC2 by its tags while it is still described; a
 * failed lookup throws, so that Lambda retries the event and then keeps it in the dead-letter queue.
 */
export async function recordNodeEvent(
  deps: NodeEventDependencies,
  observation: InstanceObservation,
): Promise<NodeEventResult> {
  const now = deps.now();
  if (observation.running && observation.cluster === undefined) {
    const found = await clusterOfInstance(deps, observation);
    if (typeof found !== 'string') return found;
    return countIfTerminating(deps, await deps.ledger.observe({ ...observation, cluster: found }, now), now);
  }
  let record = await deps.ledger.observe(observation, now);
  if (record.cluster === undefined && record.terminatingAt !== undefined) {
    const found = await clusterOfInstance(deps, observation);
    if (typeof found !== 'string') return found;
    record = await deps.ledger.observe({ ...observation, cluster: found }, now);
  }
  if (record.cluster !== undefined && !deps.clusters.watched.has(record.cluster)) {
    return { outcome: 'unwatched', cluster: record.cluster };
  }
  return countIfTerminating(deps, record, now);
}

/**
 * The display name of the watched cluster an instance belongs to, from its tags' EKS name and the account and Region
 * of its event; or why there is none.
 */
async function clusterOfInstance(
  deps: NodeEventDependencies,
  o: InstanceObservation,
): Promise<string | NodeEventResult> {
  const tags = await deps.directory.tagsOf(o.instanceId, o.account, o.region);
  if (tags === undefined) return { outcome: 'unplaced' };
  const name = clusterOfTags(tags);
  if (name === undefined) return { outcome: 'not-a-node' };
  return deps.clusters.ofName(name, o.account, o.region) ?? { outcome: 'unwatched', cluster: name };
}

async function countIfTerminating(
  deps: NodeEventDependencies,
  record: InstanceRecord,
  now: number,
): Promise<NodeEventResult> {
  const { cluster, terminatingAt } = record;
  if (cluster === undefined || terminatingAt === undefined) return { outcome: 'recorded', ...(cluster && { cluster }) };
  const reason = reasonOf(record, terminatingAt);
  const at = Math.floor(terminatingAt / 60_000) * 60_000;
  await deps.ledger.count({ cluster, instanceId: record.instanceId, at, reason }, now);
  if (couldBeRepair(reason))
    await deps.ledger.notePossibleRepair({ cluster, instanceId: record.instanceId, at, reason }, now);
  return { outcome: 'counted', cluster, reason };
}

/** A spot warning or a rebalance recommendation explains a termination that follows it, not one days later. */
function reasonOf(record: InstanceRecord, terminatingAt: number): TerminationReason {
  const { reason, reasonAt } = record;
  if (reason === undefined) return 'unspecified';
  const warning = reason === 'spot-interruption' || reason === 'rebalance';
  if (warning && reasonAt !== undefined && terminatingAt - reasonAt > WARNING_VALID_MS) return 'unspecified';
  return reason;
}
