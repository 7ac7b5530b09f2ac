import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type {
  CountedTermination,
  InstanceObservation,
  InstanceRecord,
  NodeChurnLedger,
} from '../../shared/churn/node-churn.ts';
import { REPAIR_ARMS_POLLING_MS, repairsArmUntil } from '../../shared/churn/node-termination.ts';
import { DAY_S } from '../../shared/time.ts';
import { decodeItem, instanceItem } from './table-items.ts';
import { instanceKey, nodeChurnTripwireKey, terminationKey } from './table-keys.ts';

/** What this module sends: one update per node event, and a put per counted termination. */
export const IAM_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

/**
 * An instance's record lives a week past its last event. A node that runs longer loses its record to TTL and is
 * placed, when it terminates, by the lookup in EC2 instead (it is still described then).
 */
const INSTANCE_TTL_S = 7 * DAY_S;
/** The most repairs a cluster's node-churn tripwire keeps: far more than the three that arm it, and about 4 KB. */
const REPAIRS_KEPT = 100;
/** Terminations are kept as long as CloudWatch keeps one-minute data (15 days): the longest look-back of a poll. */
const TERMINATION_TTL_S = 15 * DAY_S;

/**
 * Node churn in the incident table: `INSTANCE`/`<instance id>` merges what the events tell of an instance, and
 * `NODES#<cluster>`/`<minute>#<instance id>` holds each termination once (see NodeChurnLedger for why both writes
 * are idempotent under EventBridge's at-least-once delivery). DynamoDbNodeChurnReader reads them for the poller.
 */
export class DynamoDbNodeChurnLedger implements NodeChurnLedger {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async observe(o: InstanceObservation, now: number): Promise<InstanceRecord> {
    const sets = ['expiresAt = :expiresAt'];
    const values: Record<string, unknown> = { ':expiresAt': Math.floor(now / 1000) + INSTANCE_TTL_S };
    // The first event to report the cluster or the termination fixes it, so every later one counts in the same minute.
    if (o.cluster !== undefined) {
      sets.push('#cluster = if_not_exists(#cluster, :cluster)');
      values[':cluster'] = o.cluster;
    }
    if (o.terminatingAt !== undefined) {
      sets.push('terminatingAt = if_not_exists(terminatingAt, :terminatingAt)');
      values[':terminatingAt'] = o.terminatingAt;
    }
    if (o.reason !== undefined) {
      sets.push('reason = :reason', 'reasonAt = :reasonAt');
      values[':reason'] = o.reason;
      values[':reasonAt'] = o.reasonAt ?? now;
    }
    const key = instanceKey(o.instanceId);
    const { Attributes = {} } = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ...(o.cluster !== undefined && { ExpressionAttributeNames: { '#cluster': 'cluster' } }),
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    const { sk, ...record } = decodeItem(instanceItem, Attributes, key);
    return { instanceId: sk, ...record };
  }

  async count(termination: CountedTermination): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...terminationKey(termination.cluster, termination.at, termination.instanceId),
          cluster: termination.cluster,
          instanceId: termination.instanceId,
          // Not `at`: that name is the byDay index's sort key, a string.
          minute: termination.at,
          reason: termination.reason,
          expiresAt: Math.floor(termination.at / 1000) + TERMINATION_TTL_S,
        },
      }),
    );
  }

  async notePossibleRepair(termination: CountedTermination, now: number): Promise<void> {
    const key = nodeChurnTripwireKey(termination.cluster);
    // A set of `<minute>#<instance>`: a redelivered event adds nothing, so one repair never arms by itself.
    const { Attributes = {} } = await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key,
        UpdateExpression:
          'ADD repairs :repair SET #state = if_not_exists(#state, :ok), changedAt = if_not_exists(changedAt, :now), expiresAt = if_not_exists(expiresAt, :expires)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':repair': new Set([`${new Date(termination.at).toISOString()}#${termination.instanceId}`]),
          ':ok': 'OK',
          ':now': now,
          ':expires': Math.floor((termination.at + REPAIR_ARMS_POLLING_MS) / 1000),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const noted = [...((Attributes.repairs as Set<string> | undefined) ?? [])];
    const timeOf = (entry: string) => Date.parse(entry.split('#')[0] ?? '');
    const newest = Math.max(...noted.map(timeOf));
    const until = repairsArmUntil(noted.map(timeOf));
    // Bounded by time (the repairs of the last arming window) and by count (the newest REPAIRS_KEPT of them), so
    // that a fleet-wide replacement cannot grow the item towards DynamoDB's 400 KB.
    const byAge = [...noted].sort((a, b) => timeOf(b) - timeOf(a));
    const dropped = byAge.filter((entry, i) => i >= REPAIRS_KEPT || timeOf(entry) <= newest - REPAIR_ARMS_POLLING_MS);
    // The TTL moves with each repair: a set whose repairs trickle in is never swept while one of them may still count.
    const keepUntil = Math.max(newest + REPAIR_ARMS_POLLING_MS, until ?? 0);
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key,
        UpdateExpression: [
          until === undefined
            ? 'SET expiresAt = :keep'
            : 'SET expiresAt = :keep, #state = :alarm, changedAt = :now, armedUntil = :until',
          dropped.length === 0 ? '' : 'DELETE repairs :dropped',
        ]
          .filter(Boolean)
          .join(' '),
        ...(until !== undefined && { ExpressionAttributeNames: { '#state': 'state' } }),
        ExpressionAttributeValues: {
          ':keep': Math.floor(keepUntil / 1000),
          // Read as an armed tripwire until then: a later repair extends it, and nothing needs to disarm it.
          ...(until !== undefined && { ':alarm': 'ALARM', ':now': now, ':until': Math.floor(until / 1000) }),
          ...(dropped.length > 0 && { ':dropped': new Set(dropped) }),
        },
      }),
    );
  }
}
