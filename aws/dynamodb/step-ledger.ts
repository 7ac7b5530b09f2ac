import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Notification } from '../../shared/engine/notification.ts';
import { type Application, applyStep, INCIDENTS_PER_MARK } from '../../shared/pipeline/apply-step.ts';
import type {
  AfterQueued,
  IncidentRepository,
  Outbox,
  StepClaim,
  StepLedger,
  StepOutcome,
} from '../../shared/pipeline/ports.ts';
import {
  afterRollForward,
  ruleOnClaim,
  StepQuarantinedError,
  StepUnfinishedError,
  tookItAlready,
} from '../../shared/pipeline/step-claim.ts';
import { isConditionFailure, isRefusedForGood, unlessConditionFails } from './conditions.ts';
import { putGzippedParts, readGzippedParts, readPartPayloads } from './gzipped-parts.ts';
import { PARTITION_WRITE_UNITS_PER_SECOND } from './partition-pacing.ts';
import type { DynamoDbTable } from './table.ts';
import {
  cursorItem,
  decodeItem,
  decodeJson,
  stepHeaderItem,
  stepOutcome,
  stepPartItem,
  stepProgressItem,
} from './table-items.ts';
import { CURSOR_KEY, stepKey, stepPartKey, stepProgressKey } from './table-keys.ts';
import { INLINE_JSON_BYTES, utf8Bytes } from './table-limits.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/**
 * How many incidents a step saves between two marks: `INCIDENTS_PER_MARK` at DynamoDB's partition line, and at a
 * stand-in's scaled line (support/fleet-outage.ts) fewer in proportion, so that marks are as many seconds of paced
 * writes apart as in AWS and a poll stops as close to its time.
 */
export function incidentsPerMark(partitionWriteUnits = PARTITION_WRITE_UNITS_PER_SECOND): number {
  return Math.max(1, Math.round((INCIDENTS_PER_MARK * partitionWriteUnits) / PARTITION_WRITE_UNITS_PER_SECOND));
}

/** What this module sends: claims of a step and the commit of its outcome. */
export const IAM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;

/**
 * The step ledger in DynamoDB: the cursor (`POLL`/`CURSOR`) says which step is claimed and which is done, and each
 * step's outcome is committed as a write-ahead record (`STEP` items) before the outbox and incident writes apply it,
 * so that any invocation can finish a step whose writer died. See `StepLedger` for the order of the writes.
 */
export class DynamoDbStepLedger implements StepLedger {
  private readonly incidentsPerMark: number;

  constructor(
    private readonly table: DynamoDbTable,
    private readonly parts: { readonly incidents: IncidentRepository; readonly outbox: Outbox },
  ) {
    this.incidentsPerMark = incidentsPerMark(table.partitionWriteUnits);
  }

  async claimStep(at: number, owner: string, leaseUntil: number, writeUntil?: number): Promise<StepClaim> {
    const written = await this.cursor();
    const ruling = ruleOnClaim(written, at, owner, this.table.now());
    if (ruling.answer !== 'take') return ruling.answer;
    if (ruling.unfinished !== undefined) {
      // The step's writer died (or this is its retry). What it committed is the step's outcome: finish applying it
      // rather than evaluating the step again on fresher data and saying something different.
      const rolledForward = await this.rollForward(ruling.unfinished, owner, writeUntil);
      if (afterRollForward(at, ruling.unfinished, rolledForward) === 'done') return 'done';
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
      if (!isConditionFailure(error)) throw error;
      // The SDK retried an update whose answer was lost: the first attempt took the step, and the retry failed its
      // condition on the cursor that attempt wrote.
      return tookItAlready(await this.cursor(), at, owner, leaseUntil) ? 'claimed' : 'busy';
    }
  }

  private async cursor() {
    const { Item } = await this.table.db.send(
      new GetCommand({ TableName: this.table.name, Key: CURSOR_KEY, ConsistentRead: true }),
    );
    return decodeItem(cursorItem, Item ?? {}, CURSOR_KEY);
  }

  async recordStep(
    outcome: StepOutcome,
    owner: string,
    afterQueued?: AfterQueued,
    writeUntil?: number,
  ): Promise<readonly Notification[]> {
    const committed = await this.commitStep(outcome, owner);
    await this.applyUntil(committed, { afterQueued }, owner, writeUntil);
    return committed.notifications;
  }

  /**
   * Apply an outcome, saving its incidents until `writeUntil` at most. A step left unfinished is let go, if `owner`
   * holds it (its own claim, or its own earlier attempt when this is a retried invocation).
   */
  private async applyUntil(
    outcome: StepOutcome,
    application: Application,
    owner: string,
    writeUntil: number | undefined,
  ): Promise<void> {
    try {
      await this.apply(outcome, {
        ...application,
        ...(writeUntil !== undefined && { writeUntil: { at: writeUntil, now: () => this.table.now() } }),
      });
    } catch (error) {
      // A lease that cannot be let go runs out on its own, a minute after the claim at most: the next poll may find
      // the step busy once, and nothing is lost, so a failure here must not turn the stop into a failed poll.
      if (error instanceof StepUnfinishedError) await this.letGo(outcome.at, owner).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Ends this owner's lease of a step it leaves unfinished, so that the next poll rolls the step forward at once
   * rather than find it busy until the lease runs out, and skip its own minute.
   */
  private async letGo(at: number, owner: string): Promise<void> {
    await unlessConditionFails(
      this.table.db.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: CURSOR_KEY,
          UpdateExpression: 'SET leaseUntil = :now',
          ConditionExpression: 'claimedStep = :at AND #owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':at': at, ':owner': owner, ':now': this.table.now() },
        }),
      ),
    );
  }

  /**
   * Write the step's outcome, then its header: the header's conditional put is the commit point. An outcome that fits
   * (`INLINE_JSON_BYTES`) goes in the header itself, so that a quiet step is one write; a larger one is written first in
   * gzipped parts (a fleet's evidence is the same text cluster after cluster: a fraction of the write units its JSON
   * would take, in a partition that serves at most 1,000 a second). If another invocation committed this step first
   * (its lease ran out under it), its outcome is the one that counts.
   *
   * A write-ahead record rather than one transaction over the outbox and incident items, because TransactWriteItems
   * takes at most 100 items and 4 MB in aggregate
   * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html), which one step
   * exceeds when an outage changes an incident on each of more than a hundred clusters; and because the stand-in the
   * wire tests run on, dynalite, implements no transactions, so they could not be checked.
   */
  private async commitStep(outcome: StepOutcome, owner: string): Promise<StepOutcome> {
    const json = JSON.stringify(outcome);
    const held =
      utf8Bytes(json) <= INLINE_JSON_BYTES
        ? { payload: json }
        : {
            gzippedParts: await putGzippedParts(
              this.table,
              json,
              (part) => stepPartKey(outcome.at, owner, part),
              this.table.expiresAt(this.table.now()),
            ),
          };
    try {
      await this.table.db.send(
        new PutCommand({
          TableName: this.table.name,
          Item: { ...stepKey(outcome.at), ...held, owner, expiresAt: this.table.expiresAt(this.table.now()) },
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
    if ('payload' in header) return decodeJson(stepOutcome, header.payload, key);
    const partKey = (part: number) => stepPartKey(at, header.owner, part);
    if ('gzippedParts' in header) {
      return decodeJson(stepOutcome, await readGzippedParts(this.table, header.gzippedParts, partKey), key);
    }
    // The JSON itself, in parts, as 0.1.0 and the releases before it wrote a large outcome: read so that an upgrade
    // rolls forward a step its predecessor committed.
    const slices = await readPartPayloads(this.table, header.parts, partKey, stepPartItem);
    return decodeJson(stepOutcome, slices.join(''), key);
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
  private async rollForward(at: number, owner: string, writeUntil: number | undefined): Promise<boolean> {
    const outcome = await this.readStep(at);
    if (!outcome) return false;
    await this.applyUntil(outcome, { saved: await this.savedIncidents(at) }, owner, writeUntil);
    return true;
  }

  /** How many of step `at`'s changed incidents its earlier applications marked saved (`markSaved`). */
  private async savedIncidents(at: number): Promise<number> {
    const key = stepProgressKey(at);
    const { Item } = await this.table.db.send(
      new GetCommand({ TableName: this.table.name, Key: key, ConsistentRead: true }),
    );
    return Item ? decodeItem(stepProgressItem, Item, key).savedIncidents : 0;
  }

  /**
   * Marks the first `saved` of step `at`'s changed incidents saved, so that a roll-forward resumes after them. Only
   * forward: two invocations applying the same step (a lease run out) may mark out of order.
   */
  private async markSaved(at: number, saved: number): Promise<void> {
    await unlessConditionFails(
      this.table.db.send(
        new PutCommand({
          TableName: this.table.name,
          Item: { ...stepProgressKey(at), savedIncidents: saved, expiresAt: this.table.expiresAt(this.table.now()) },
          ConditionExpression: 'attribute_not_exists(savedIncidents) OR savedIncidents < :saved',
          ExpressionAttributeValues: { ':saved': saved },
        }),
      ),
    );
  }

  /**
   * Apply a committed outcome and mark its step done. An outcome the table refuses for good (DynamoDB's
   * ValidationException: an item it will never take) is quarantined: the reason is kept on the step's header, the
   * step is marked done so that the cursor moves past it, and a StepQuarantinedError says so. Without this every
   * later poll would roll the step forward, fail on the same write, and nothing would be published again.
   */
  private async apply(outcome: StepOutcome, application: Application): Promise<void> {
    try {
      await applyStep(outcome, this.parts, {
        ...application,
        markSaved: (saved) => this.markSaved(outcome.at, saved),
        incidentsPerMark: this.incidentsPerMark,
      });
    } catch (error) {
      if (!isRefusedForGood(error)) throw error;
      const reason = `${(error as Error).name}: ${(error as Error).message}`.slice(0, 1000);
      await this.table.db.send(
        new UpdateCommand({
          TableName: this.table.name,
          Key: stepKey(outcome.at),
          UpdateExpression: 'SET quarantined = :reason',
          ExpressionAttributeValues: { ':reason': reason },
        }),
      );
      await this.markStepDone(outcome.at);
      throw new StepQuarantinedError(outcome.at, reason, { cause: error });
    }
    await this.markStepDone(outcome.at);
  }
}
