import type { Notification } from '../engine/notification.ts';
import { type Application, applyStep } from './apply-step.ts';
import { behindClock } from './event-time.ts';
import type { AfterQueued, IncidentRepository, Outbox, StepClaim, StepLedger, StepOutcome } from './ports.ts';
import { afterRollForward, ruleOnClaim, type StepCursor, StepUnfinishedError } from './step-claim.ts';

/**
 * The step ledger in memory, for replay and tests. It claims by the same rule as the DynamoDB ledger (`ruleOnClaim`),
 * so that replay takes the path production takes. Nothing dies between the writes of a step here, so it keeps no
 * write-ahead record: only the step whose saving stopped at its `writeUntil`, which the next claim finishes.
 */
export class MemoryStepLedger implements StepLedger {
  private cursor: StepCursor = {};
  private unfinished: { readonly outcome: StepOutcome; readonly saved: number } | undefined;

  constructor(
    private readonly now: () => number,
    private readonly parts: { readonly incidents: IncidentRepository; readonly outbox: Outbox },
  ) {}

  async claimStep(at: number, owner: string, leaseUntil: number, writeUntil?: number): Promise<StepClaim> {
    const ruling = ruleOnClaim(this.cursor, at, owner, this.now());
    if (ruling.answer !== 'take') return ruling.answer;
    const { unfinished } = this;
    if (ruling.unfinished !== undefined && unfinished?.outcome.at === ruling.unfinished) {
      await this.apply(unfinished.outcome, { saved: unfinished.saved }, owner, writeUntil);
      if (afterRollForward(at, ruling.unfinished, true) === 'done') return 'done';
    }
    this.cursor = { ...this.cursor, claimedStep: at, owner, leaseUntil };
    return 'claimed';
  }

  async recordStep(
    outcome: StepOutcome,
    owner: string,
    afterQueued?: AfterQueued,
    writeUntil?: number,
  ): Promise<readonly Notification[]> {
    await this.apply(outcome, { afterQueued }, owner, writeUntil);
    return outcome.notifications;
  }

  /** Apply an outcome and mark its step done; one stopped at `writeUntil` is kept, and `owner`'s lease of it ended. */
  private async apply(
    outcome: StepOutcome,
    application: Application,
    owner: string,
    writeUntil: number | undefined,
  ): Promise<void> {
    let saved = application.saved ?? 0;
    try {
      await applyStep(outcome, this.parts, {
        ...application,
        markSaved: async (marked) => {
          saved = marked;
        },
        ...(writeUntil !== undefined && { writeUntil: { at: writeUntil, now: this.now } }),
      });
    } catch (error) {
      if (error instanceof StepUnfinishedError) {
        this.unfinished = { outcome, saved };
        const { claimedStep, owner: holder } = this.cursor;
        if (claimedStep === outcome.at && holder === owner) this.cursor = { ...this.cursor, leaseUntil: this.now() };
      }
      throw error;
    }
    this.unfinished = undefined;
    const doneStep = behindClock(this.cursor.doneStep, this.now());
    this.cursor = { ...this.cursor, doneStep: Math.max(doneStep ?? Number.NEGATIVE_INFINITY, outcome.at) };
  }
}
