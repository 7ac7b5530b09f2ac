import { SentinelError } from '../errors.ts';
import { behindClock, claimableStep } from './event-time.ts';
import type { UnfinishedStep } from './ports.ts';

/** The step cursor as a ledger keeps it: which step is claimed, by whom and until when, and which step is done. */
export interface StepCursor {
  readonly claimedStep?: number | undefined;
  readonly owner?: string | undefined;
  readonly leaseUntil?: number | undefined;
  readonly doneStep?: number | undefined;
}

/**
 * What a ledger does with a claim of step `at`: answer at once, or take the step, first finishing (`unfinished`) a
 * step claimed before whose writer died or whose retry this is.
 */
export type ClaimRuling =
  | { readonly answer: 'done' | 'stale' | 'busy' }
  | { readonly answer: 'take'; readonly unfinished?: number };

/**
 * The one rule of who may evaluate a step, which the memory ledger (replay) and the DynamoDB ledger both follow:
 * - a step at or before the done step is `done` (itself) or `stale` (older); one before the claimed step is `stale`;
 * - while a claimed step is unfinished and its owner's lease runs, every other owner is `busy`, for that step and for
 *   any later one: a later step evaluated before the earlier one is applied would not see its incidents, and would
 *   page them again;
 * - otherwise the claimant takes the step, after rolling forward an unfinished one (its own earlier attempt, or a dead
 *   writer's) so that what was committed is applied, never evaluated again.
 * A cursor value ahead of the clock was written by no real poll: it is void.
 */
export function ruleOnClaim(written: StepCursor, at: number, owner: string, now: number): ClaimRuling {
  claimableStep(at, now);
  const doneStep = behindClock(written.doneStep, now);
  const claimedStep = behindClock(written.claimedStep, now);
  if (doneStep !== undefined && at <= doneStep) return { answer: at === doneStep ? 'done' : 'stale' };
  if (claimedStep !== undefined && claimedStep > at) return { answer: 'stale' };
  if (claimedStep === undefined || claimedStep === doneStep) return { answer: 'take' };
  if (written.owner !== owner && (written.leaseUntil ?? 0) > now) return { answer: 'busy' };
  return { answer: 'take', unfinished: claimedStep };
}

/** The answer to a claim once the unfinished step has been rolled forward: taking it again would evaluate it twice. */
export function afterRollForward(at: number, unfinished: number, rolledForward: boolean): 'done' | 'take' {
  return rolledForward && unfinished === at ? 'done' : 'take';
}

/**
 * Whether a conditional take that failed its condition had in fact succeeded: the write landed but its answer was
 * lost, and the retry of the request found the cursor as it had set it itself. Without this the poll would report
 * `busy` and skip its own minute.
 */
export function tookItAlready(found: StepCursor, at: number, owner: string, leaseUntil: number): boolean {
  return found.claimedStep === at && found.owner === owner && found.leaseUntil === leaseUntil;
}

/**
 * Whether a notification may be claimed for delivery: it waits (`pending`), or its sender's lease ran out before now.
 * The outbox in memory calls this; the DynamoDB outbox states the same in its condition expression.
 */
export function deliveryClaimable(
  entry: { readonly status: 'pending' | 'sending' | 'delivered'; readonly leaseUntil?: number | undefined },
  now: number,
): boolean {
  return entry.status === 'pending' || (entry.status === 'sending' && (entry.leaseUntil ?? 0) < now);
}

/**
 * A committed step whose outcome the store refuses for good (an item DynamoDB will never take): it is set aside
 * with its reason, the cursor moves past it, and polling goes on; the StepsQuarantined alarm pages on it.
 */
export class StepQuarantinedError extends SentinelError {
  constructor(
    readonly step: number,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`step ${new Date(step).toISOString()} cannot be applied and is quarantined: ${reason}`, options);
  }
}

/**
 * A step whose incidents were not all saved before the invocation's time ran out: its outcome is committed, its
 * notifications are queued (and delivered), and the next claim saves the rest from the last mark. Not a failure.
 */
export class StepUnfinishedError extends SentinelError {
  constructor(readonly unfinished: UnfinishedStep) {
    super(
      `step ${new Date(unfinished.step).toISOString()} saved ${unfinished.saved} of its ${unfinished.changed} changed incidents before the time ran out; the next poll saves the rest`,
    );
  }
}
