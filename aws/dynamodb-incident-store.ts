import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Incident } from '../shared/engine/incident.ts';
import type { Notification } from '../shared/engine/notification.ts';
import { activityOf } from '../shared/pipeline/activity.ts';
import type {
  Activity,
  IncidentStore,
  NotificationRecord,
  PendingNotification,
  PollRecord,
  StepClaim,
} from '../shared/pipeline/ports.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/**
 * Items, all in one table (pk, sk; GSI `byDay` on day, at; TTL on expiresAt):
 * - `POLL`/`CURSOR`: which step is claimed (by whom, until when) and which is done.
 * - `STEP`/`<at>` (+ `<at>#<part>`): a step's outcome, written before it is applied: the write-ahead record that lets
 *   any invocation finish a step whose writer died, since DynamoDB Local stand-ins have no transactions.
 * - `OPEN`/`<incident id>`: open incidents, read with a consistent query every poll.
 * - `INCIDENT`/`<incident id>`: resolved incidents (GSI day `INCIDENT#<resolved day>`).
 * - `OUTBOX`/`<notification id>`: every notification; GSI day `PENDING` until delivered, then
 *   `NOTIFICATION#<day it was raised>`.
 * - `POLLLOG`/`<at>#<owner>`: one record per poll (GSI day `POLL#<day>`).
 */
const CURSOR_KEY = { pk: 'POLL', sk: 'CURSOR' };
/** Step records are split into parts below DynamoDB's 400 KB item limit. */
const PART_BYTES = 300_000;
const DAY_MS = 86_400_000;

export interface DynamoDbIncidentStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly table: string;
  readonly now: () => number;
  /** How long resolved incidents, notifications and poll records are kept (the digest compares two weeks). */
  readonly retentionDays?: number;
}

interface Cursor {
  claimedStep?: number;
  owner?: string;
  leaseUntil?: number;
  doneStep?: number;
}

interface StepOutcome {
  readonly at: number;
  readonly changed: readonly Incident[];
  readonly notifications: readonly Notification[];
}

const dayOf = (time: number | string) => new Date(time).toISOString().slice(0, 10);
const partKey = (stepKey: string, owner: string, part: number) => `${stepKey}#${owner}#${part}`;

export function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException || (error as Error)?.name === 'ConditionalCheckFailedException'
  );
}

export class DynamoDbIncidentStore implements IncidentStore {
  private readonly db: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly retentionMs: number;
  /** Notifications this instance recorded, delivered in the same run even before the index shows them. */
  private fresh: Notification[] = [];

  constructor(private readonly options: DynamoDbIncidentStoreOptions) {
    this.db = options.client;
    this.table = options.table;
    this.retentionMs = (options.retentionDays ?? 35) * DAY_MS;
  }

  private expiresAt(from: number): number {
    return Math.floor((from + this.retentionMs) / 1000);
  }

  async claimStep(at: number, owner: string, leaseUntil: number): Promise<StepClaim> {
    const cursor = await this.cursor();
    if (cursor.doneStep !== undefined && at <= cursor.doneStep) return at === cursor.doneStep ? 'done' : 'stale';
    if (cursor.claimedStep !== undefined && cursor.claimedStep > at) return 'stale';
    const unfinished = cursor.claimedStep !== undefined && cursor.claimedStep !== cursor.doneStep;
    if (unfinished && cursor.owner !== owner && (cursor.leaseUntil ?? 0) > this.options.now()) return 'busy';
    if (unfinished && cursor.claimedStep !== undefined) {
      // The step's writer died (or this is its retry). What it committed is the step's outcome: finish applying it
      // rather than evaluating the step again on fresher data and saying something different.
      const rolledForward = await this.rollForward(cursor.claimedStep);
      if (rolledForward && cursor.claimedStep === at) return 'done';
    }
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: CURSOR_KEY,
          UpdateExpression: 'SET claimedStep = :at, #owner = :owner, leaseUntil = :lease',
          ConditionExpression:
            cursor.claimedStep === undefined
              ? 'attribute_not_exists(pk)'
              : 'claimedStep = :seen AND #owner = :seenOwner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':at': at,
            ':owner': owner,
            ':lease': leaseUntil,
            ...(cursor.claimedStep !== undefined && { ':seen': cursor.claimedStep, ':seenOwner': cursor.owner }),
          },
        }),
      );
      return 'claimed';
    } catch (error) {
      if (isConditionFailure(error)) return 'busy';
      throw error;
    }
  }

  private async cursor(): Promise<Cursor> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.table, Key: CURSOR_KEY, ConsistentRead: true }),
    );
    return (Item ?? {}) as Cursor;
  }

  async openIncidents(): Promise<Incident[]> {
    const items = await this.queryAll({
      TableName: this.table,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'OPEN' },
      ConsistentRead: true,
    });
    return items.map((item) => item.incident as Incident);
  }

  async recordStep(at: number, owner: string, changed: readonly Incident[], notifications: readonly Notification[]) {
    const outcome = await this.commitStep({ at, changed, notifications }, owner);
    await this.apply(outcome);
    await this.markStepDone(at);
    this.fresh = [...outcome.notifications];
  }

  /**
   * Write the step's outcome in parts, then its header: the header's conditional put is the commit point. If another
   * invocation committed this step first (its lease ran out under it), its outcome is the one that counts.
   */
  private async commitStep(outcome: StepOutcome, owner: string): Promise<StepOutcome> {
    const stepKey = new Date(outcome.at).toISOString();
    const payload = JSON.stringify(outcome);
    const parts = Math.max(1, Math.ceil(payload.length / PART_BYTES));
    // Parts are keyed by their writer, so a competing writer of the same step can never splice into them.
    for (let part = 0; part < parts; part++) {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            pk: 'STEP',
            sk: partKey(stepKey, owner, part),
            payload: payload.slice(part * PART_BYTES, (part + 1) * PART_BYTES),
            expiresAt: this.expiresAt(this.options.now()),
          },
        }),
      );
    }
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: 'STEP', sk: stepKey, parts, owner, expiresAt: this.expiresAt(this.options.now()) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return outcome;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return (await this.readStep(outcome.at)) ?? outcome;
    }
  }

  private async readStep(at: number): Promise<StepOutcome | undefined> {
    const stepKey = new Date(at).toISOString();
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.table, Key: { pk: 'STEP', sk: stepKey }, ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const payload: string[] = [];
    for (let part = 0; part < (Item.parts as number); part++) {
      const { Item: written } = await this.db.send(
        new GetCommand({
          TableName: this.table,
          Key: { pk: 'STEP', sk: partKey(stepKey, Item.owner as string, part) },
          ConsistentRead: true,
        }),
      );
      payload.push((written?.payload as string | undefined) ?? '');
    }
    return JSON.parse(payload.join('')) as StepOutcome;
  }

  private async markStepDone(at: number): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: CURSOR_KEY,
          UpdateExpression: 'SET doneStep = :at',
          ConditionExpression: 'claimedStep = :at',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
    } catch (error) {
      // A later step was claimed meanwhile (this one was rolled forward by its next poll): nothing left to mark.
      if (!isConditionFailure(error)) throw error;
    }
  }

  /** Apply a committed step and mark it done; false when its writer died before committing anything. */
  private async rollForward(at: number): Promise<boolean> {
    const outcome = await this.readStep(at);
    if (!outcome) return false;
    await this.apply(outcome);
    await this.markStepDone(at);
    return true;
  }

  /** Every write here is idempotent, so applying a step twice (a roll-forward after a partial apply) is harmless. */
  private async apply(outcome: StepOutcome): Promise<void> {
    for (const notification of outcome.notifications) {
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              pk: 'OUTBOX',
              sk: notification.id,
              notification,
              status: 'pending',
              attempts: 0,
              day: 'PENDING',
              // Filed under the day it was raised, however late a retry delivers it, so its week keeps it.
              loggedDay: `NOTIFICATION#${dayOf(notification.at)}`,
              at: notification.at,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    // Fenced by the step's time: a late writer of an older step can never overwrite what a newer step wrote.
    const fence = {
      TableName: this.table,
      ConditionExpression: 'attribute_not_exists(appliedStep) OR appliedStep <= :at',
      ExpressionAttributeValues: { ':at': outcome.at },
    };
    const ignoringNewer = async (write: Promise<unknown>) => {
      try {
        await write;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    };
    for (const incident of outcome.changed) {
      if (incident.status === 'open') {
        await ignoringNewer(
          this.db.send(
            new PutCommand({ ...fence, Item: { pk: 'OPEN', sk: incident.id, incident, appliedStep: outcome.at } }),
          ),
        );
      } else {
        // Indexed by the day it resolved: a week asks for what resolved from its start on, plus what is still open.
        const resolvedAt = incident.resolvedAt ?? incident.openedAt;
        await this.db.send(
          new PutCommand({
            TableName: this.table,
            Item: {
              pk: 'INCIDENT',
              sk: incident.id,
              incident,
              day: `INCIDENT#${dayOf(resolvedAt)}`,
              at: resolvedAt,
              expiresAt: this.expiresAt(Date.parse(resolvedAt)),
            },
          }),
        );
        await ignoringNewer(this.db.send(new DeleteCommand({ ...fence, Key: { pk: 'OPEN', sk: incident.id } })));
      }
    }
  }

  async pendingNotifications(): Promise<PendingNotification[]> {
    const indexed = await this.byDay('PENDING');
    const pending = new Map<string, PendingNotification>();
    for (const notification of this.fresh) pending.set(notification.id, { notification, attempts: 0 });
    for (const item of indexed) {
      pending.set(item.sk as string, {
        notification: item.notification as Notification,
        attempts: (item.attempts as number) ?? 0,
        ...(typeof item.lastError === 'string' && { lastError: item.lastError }),
      });
    }
    this.fresh = [];
    return [...pending.values()].sort((a, b) => a.notification.at.localeCompare(b.notification.at));
  }

  async claimDelivery(id: string, owner: string, leaseUntil: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: 'OUTBOX', sk: id },
          UpdateExpression: 'SET #status = :sending, #owner = :owner, leaseUntil = :lease',
          ConditionExpression: '#status = :pending OR (#status = :sending AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#status': 'status', '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':sending': 'sending',
            ':pending': 'pending',
            ':owner': owner,
            ':lease': leaseUntil,
            ':now': this.options.now(),
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async markDelivered(id: string, messageId: string, at: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: 'OUTBOX', sk: id },
        UpdateExpression:
          'SET #status = :delivered, messageId = :messageId, deliveredAt = :at, #day = if_not_exists(loggedDay, :day), expiresAt = :expires ADD attempts :one REMOVE #owner, leaseUntil',
        ExpressionAttributeNames: { '#status': 'status', '#owner': 'owner', '#day': 'day' },
        ExpressionAttributeValues: {
          ':delivered': 'delivered',
          ':messageId': messageId,
          ':at': at,
          // Outbox items written before notifications carried their own day are filed under the delivery day.
          ':day': `NOTIFICATION#${dayOf(at)}`,
          ':expires': this.expiresAt(at),
          ':one': 1,
        },
      }),
    );
  }

  async markFailed(id: string, error: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: 'OUTBOX', sk: id },
        UpdateExpression: 'SET #status = :pending, lastError = :error ADD attempts :one REMOVE #owner, leaseUntil',
        ExpressionAttributeNames: { '#status': 'status', '#owner': 'owner' },
        ExpressionAttributeValues: { ':pending': 'pending', ':error': error.slice(0, 1000), ':one': 1 },
      }),
    );
  }

  async recordPoll(record: PollRecord): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          pk: 'POLLLOG',
          sk: `${new Date(record.at).toISOString()}#${record.owner}`,
          day: `POLL#${dayOf(record.at)}`,
          at: new Date(record.at).toISOString(),
          record,
          expiresAt: this.expiresAt(record.at),
        },
      }),
    );
  }

  async activityBetween(from: number, to: number): Promise<Activity> {
    const daysUntil = (end: number) => {
      const days: string[] = [];
      for (let day = Date.parse(dayOf(from)); day < end; day += DAY_MS) days.push(dayOf(day));
      return days;
    };
    const byDay = async (prefix: string, days = daysUntil(to)) =>
      (await Promise.all(days.map((day) => this.byDay(`${prefix}#${day}`)))).flat();
    // Incidents still open were possibly opened long before the period: the OPEN partition has them all.
    // An incident overlapping the period resolved after it started: its resolved day is between `from` and now.
    const [resolved, open, notifications, pending, polls] = await Promise.all([
      byDay('INCIDENT', daysUntil(Math.max(to, this.options.now() + DAY_MS))),
      this.openIncidents(),
      byDay('NOTIFICATION'),
      this.byDay('PENDING'),
      byDay('POLL'),
    ]);
    const incidents = new Map<string, Incident>();
    for (const incident of open) incidents.set(incident.id, incident);
    // An incident moving from OPEN to INCIDENT can be seen in both: the resolved copy is the newer one.
    for (const item of resolved) incidents.set(item.sk as string, item.incident as Incident);
    const records: NotificationRecord[] = [...notifications, ...pending].map((item) => ({
      notification: item.notification as Notification,
      status: item.status as NotificationRecord['status'],
      attempts: (item.attempts as number) ?? 0,
      ...(item.deliveredAt !== undefined && { deliveredAt: item.deliveredAt as number }),
      ...(item.lastError !== undefined && { lastError: item.lastError as string }),
    }));
    return activityOf(
      {
        incidents: [...incidents.values()],
        notifications: records,
        polls: polls.map((item) => item.record as PollRecord),
      },
      from,
      to,
    );
  }

  /** Items of one partition of the `byDay` index (eventually consistent, which its readers tolerate). */
  private byDay(day: string): Promise<Record<string, unknown>[]> {
    return this.queryAll({
      TableName: this.table,
      IndexName: TABLE_SCHEMA.dayIndex.name,
      KeyConditionExpression: '#day = :day',
      ExpressionAttributeNames: { '#day': TABLE_SCHEMA.dayIndex.partitionKey },
      ExpressionAttributeValues: { ':day': day },
    });
  }

  private async queryAll(input: ConstructorParameters<typeof QueryCommand>[0]): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(new QueryCommand({ ...input, ...(start && { ExclusiveStartKey: start }) }));
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  }
}
