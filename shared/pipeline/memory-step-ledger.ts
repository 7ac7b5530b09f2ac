import type { Notification } from '../engine/notification.ts';
import { applyStep } from './apply-step.ts';
import { behindClock } from './event-time.ts';
import type { AfterQueued, IncidentRepository, Outbox, StepClaim, StepLedger, StepOutcome } from './ports.ts';
import { ruleOnClaim, type StepCursor } from './step-claim.ts';

/**
 * The step ledger in memory, for replay and tests. It claims by the same rule as the DynamoDB ledger (`ruleOnClaim`),
 * so that replay takes the path production takes. Nothing dies between the writes of a step here, so it keeps no
 * write-ahead record, and an unfinished step has nothing to roll forward.
 */
export class MemoryStepLedger implements StepLedger {
  private cursor: StepCursor = {};

  constructor(
    private readonly now: () => number,
    private readonly parts: { readonly incidents: IncidentRepository; readonly outbox: Outbox },
  ) {}

  async claimStep(at: number, owner: string, leaseUntil: number): Promise<StepClaim> {
    const ruling = ruleOnClaim(this.cursor, at, owner, this.now());
    if (ruling.answer !== 'take') return ruling.answer;
    this.cursor = { ...this.cursor, claimedStep: at, owner, leaseUntil };
    return 'claimed';
  }

  async recordStep(outcome: StepOutcome, _owner: string, afterQueued?: AfterQueued): Promise<readonly Notification[]> {
    await applyStep(outcome, this.parts, { afterQueued });
    const doneStep = behindClock(this.cursor.doneStep, this.now());
    this.cursor = { ...this.cursor, doneStep: Math.max(doneStep ?? Number.NEGATIVE_INFINITY, outcome.at) };
    return outcome.notifications;
  }
}
