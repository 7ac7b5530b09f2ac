import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Notification } from '../shared/engine/notification.ts';
import { applyStep } from '../shared/pipeline/apply-step.ts';
import { behindClock, claimableStep } from '../shared/pipeline/event-time.ts';
import type { IncidentRepository, Outbox, StepClaim, StepLedger, StepOutcome } from '../shared/pipeline/ports.ts';
import { isConditionFailure, unlessConditionFails } from './dynamodb-conditions.ts';
import type { DynamoDbTable } from './dynamodb-table.ts';
import { cursorItem, decodeItem, decodeJson, stepHeaderItem, stepOutcome, stepPartItem } from './table-items.ts';
import { CURSOR_KEY, stepKey, stepPartKey } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** What this module sends: claims of a step and the commit of its outcome. */
export const IAM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

/** Step records are split into parts below DynamoDB's 400 KB item limit. */
const PART_BYTES = 300_000;

/**
 * The step ledger in DynamoDB: the cursor (`POLL`/`CURSOR`) says which step is claimed and which is done, and each
 * step's outcome is committed as a write-ahead record (`STEP` items) before the outbox and incident writes apply it,
 * so that any invocation can finish a step whose writer died. See `StepLedger` for the order of the writes.
 */
export class DynamoDbStepLedger implements StepLedger {
  constructor(
    private readonly table: DynamoDbTable,
    private readonly parts: { readonly incidents: IncidentRepository; readonly outbox: Outbox },
  ) {}

  async claimStep(at: number, owner: string, leaseUntil: number): Promise<StepClaim> {
    const now = this.table.now();
    claimableStep(at, now);
    const written = await this.cursor();
    // A cursor ahead of the clock was written by no real poll: it is void, and the claim below overwrites it.
    const cursor = {
      ...written,
      doneStep: behindClock(written.doneStep, now),
      claimedStep: behindClock(written.claimedStep, now),
    };
    if (cursor.doneStep !== undefined && at <= cursor.doneStep) return at === cursor.doneStep ? 'done' : 'stale';
    if (cursor.claimedStep !== undefined && cursor.claimedStep > at) return 'stale';
    const unfinished = cursor.claimedStep !== undefined && cursor.claimedStep !== cursor.doneStep;
    if (unfinished && cursor.owner !== owner && (cursor.leaseUntil ?? 0) > now) return 'busy';
    if (unfinished && cursor.claimedStep !== undefined) {
      // The step's writer died (or this is its retry). What it committed is the step's outcome: finish applying it
      // rather than evaluating the step again on fresher data and saying something different.
      const rolledForward = await this.rollForward(cursor.claimedStep);
      if (rolledForward && cursor.claimedStep === at) return 'done';
    }
    try {
      await this.table.db.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: CURSOR_KEY,
          UpdateExpression: 'SET claimedStep = :at, #owner = :owner, leaseUntil = :lease',
          ConditionExpression:
            written.claimedStep === undefined
              ? `attribute_not_exists(${TABLE_SCHEMA.partitionKey})`
              : 'claimedStep = :seen AND #owner = :seenOwner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: {
            ':at': at,
            ':owner': owner,
            ':lease': leaseUntil,
            ...(written.claimedStep !== undefined && { ':seen': written.claimedStep, ':seenOwner': written.owner }),
          },
        }),
      );
      return 'claimed';
    } catch (error) {
      if (isConditionFailure(error)) return 'busy';
      throw error;
    }
  }

  private async cursor() {
    const { Item } = await this.table.db.send(
      new GetCommand({ TableName: this.table.name, Key: CURSOR_KEY, ConsistentRead: true }),
    );
    return decodeItem(cursorItem, Item ?? {}, CURSOR_KEY);
  }

  async recordStep(outcome: StepOutcome, owner: string): Promise<readonly Notification[]> {
    const committed = await this.commitStep(outcome, owner);
    await applyStep(committed, this.parts);
    await this.markStepDone(outcome.at);
    return committed.notifications;
  }

  /**
   * Write the step's outcome in parts, then its header: the header's conditional put is the commit point. If another
   * invocation committed this step first (its lease ran out under it), its outcome is the one that counts.
   *
   * A write-ahead record rather than one transaction over the outbox and incident items, because TransactWriteItems
   * takes at most 100 items and 4 MB in aggregate
   * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html), which one step
   * exceeds when an outage changes an incident on each of more than a hundred clusters; and because the stand-ins the
   * wire tests run on could not check a transaction: dynalite implements none, and DynamoDB Local cannot be fetched
   * here.
   */
  private async commitStep(outcome: StepOutcome, owner: string): Promise<StepOutcome> {
    const payload = JSON.stringify(outcome);
    const parts = Math.max(1, Math.ceil(payload.length / PART_BYTES));
    for (let part = 0; part < parts; part++) {
      await this.table.db.send(
        new PutCommand({
          TableName: this.table.name,
          Item: {
            ...stepPartKey(outcome.at, owner, part),
            payload: payload.slice(part * PART_BYTES, (part + 1) * PART_BYTES),
            expiresAt: this.table.expiresAt(this.table.now()),
          },
        }),
      );
    }
    try {
      await this.table.db.send(
        new PutCommand({
          TableName: this.table.name,
          Item: { ...stepKey(outcome.at), parts, owner, expiresAt: this.table.expiresAt(this.table.now()) },
          ConditionExpression: `attribute_not_exists(${TABLE_SCHEMA.partitionKey})`,
        }),
      );
      return outcome;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return (await this.readStep(outcome.at)) ?? outcome;
    }
  }

  private async readStep(at: number): Promise<StepOutcome | undefined> {
    const key = stepKey(at);
    const { Item } = await this.table.db.send(
      new GetCommand({ TableName: this.table.name, Key: key, ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const header = decodeItem(stepHeaderItem, Item, key);
    const payload: string[] = [];
    for (let part = 0; part < header.parts; part++) {
      const partKey = stepPartKey(at, header.owner, part);
      const { Item: written } = await this.table.db.send(
        new GetCommand({ TableName: this.table.name, Key: partKey, ConsistentRead: true }),
      );
      payload.push(decodeItem(stepPartItem, written ?? {}, partKey).payload);
    }
    return decodeJson(stepOutcome, payload.join(''), key);
  }

  private async markStepDone(at: number): Promise<void> {
    // A later step was claimed meanwhile (this one was rolled forward by its next poll): nothing left to mark.
    await unlessConditionFails(
      this.table.db.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: CURSOR_KEY,
          UpdateExpression: 'SET doneStep = :at',
          ConditionExpression: 'claimedStep = :at',
          ExpressionAttributeValues: { ':at': at },
        }),
      ),
    );
  }

  /** Apply a committed step and mark it done; false when its writer died before committing anything. */
  private async rollForward(at: number): Promise<boolean> {
    const outcome = await this.readStep(at);
    if (!outcome) return false;
    await applyStep(outcome, this.parts);
    await this.markStepDone(at);
    return true;
  }
}
