import type { Notification } from '../engine/notification.ts';
import { applyStep } from './apply-step.ts';
import { behindClock, claimableStep } from './event-time.ts';
import type { IncidentRepository, Outbox, StepClaim, StepLedger, StepOutcome } from './ports.ts';

/**
 * The step ledger in memory, for replay and tests, with the claim semantics of the DynamoDB ledger so that replay
 * exercises the same path. Nothing dies between the writes of a step here, so it needs no write-ahead record.
 */
export class MemoryStepLedger implements StepLedger {
  private claimed: { at: number; owner: string; leaseUntil: number } | undefined;
  private doneStep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly now: () => number,
    private readonly parts: { readonly incidents: IncidentRepository; readonly outbox: Outbox },
  ) {}

  async claimStep(at: number, owner: string, leaseUntil: number): Promise<StepClaim> {
    const now = this.now();
    claimableStep(at, now);
    const doneStep = behindClock(this.doneStep, now) ?? Number.NEGATIVE_INFINITY;
    if (this.claimed && behindClock(this.claimed.at, now) === undefined) this.claimed = undefined;
    if (at <= doneStep) return at === doneStep ? 'done' : 'stale';
    if (this.claimed && this.claimed.at > at) return 'stale';
    if (this.claimed && this.claimed.at === at && this.claimed.owner !== owner && this.claimed.leaseUntil > now) {
      return 'busy';
    }
    this.claimed = { at, owner, leaseUntil };
    return 'claimed';
  }

  async recordStep(outcome: StepOutcome, _owner: string): Promise<readonly Notification[]> {
    await applyStep(outcome, this.parts);
    this.doneStep = Math.max(behindClock(this.doneStep, this.now()) ?? Number.NEGATIVE_INFINITY, outcome.at);
    return outcome.notifications;
  }
}
