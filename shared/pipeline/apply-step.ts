import type { AfterQueued, IncidentRepository, Outbox, StepOutcome } from './ports.ts';
import { StepUnfinishedError } from './step-claim.ts';

/**
 * How many of a step's changed incidents are saved between two marks of how far the saving got: a fleet outage's
 * step changes an incident on every cluster, more than one invocation may have time to write, and a roll-forward
 * resumes at the last mark instead of writing them all again.
 */
export const INCIDENTS_PER_MARK = 250;

/**
 * Whether there is time for another batch before `writeUntil`: true while the next batch, if it takes as long as the
 * longest one so far, ends before then. It is asked before each batch, so the time between two askings is a batch's,
 * which the partition line a table holds (or a throttled one) decides.
 */
export function batchesEndingBy(writeUntil: number, now: () => number): () => boolean {
  let asked: number | undefined;
  let longest = 0;
  return () => {
    const at = now();
    if (asked !== undefined) longest = Math.max(longest, at - asked);
    asked = at;
    return at + longest < writeUntil;
  };
}

/** How a ledger applies an outcome: what runs between its writes, and how far an earlier application got. */
export interface Application {
  /** Runs once the notifications are queued, before the incidents are written: their delivery. */
  readonly afterQueued?: AfterQueued;
  /** How many of the outcome's changed incidents, in order, an earlier application of it saved. */
  readonly saved?: number;
  /** Called with how many are saved, every `incidentsPerMark` while more are left. */
  readonly markSaved?: (saved: number) => Promise<void>;
  /** How many incidents are saved between two marks: `INCIDENTS_PER_MARK` unless the store says otherwise. */
  readonly incidentsPerMark?: number;
  /**
   * Until when incidents may be saved, on the ledger's clock. A batch starts only if it would end by then
   * (`batchesEndingBy`); otherwise the saving stops at a mark with a StepUnfinishedError, and the next claim rolls the
   * step forward from there: an invocation that stops on its own records its poll and lets go of the step, where one
   * cut off by its timeout would do neither.
   */
  readonly writeUntil?: { readonly at: number; readonly now: () => number };
}

/**
 * Apply a committed step's outcome: notifications into the outbox first, then `afterQueued` (the poll delivers them
 * there), then incidents. In this order a death between the writes leaves notifications whose incidents are not yet
 * saved, which the roll-forward of the step completes; the other order would leave open incidents whose page was
 * never queued. And the page does not wait for the incidents: a fleet outage opens an incident per cluster, thousands
 * of writes into one partition, which DynamoDB serves at most 1,000 write units a second
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html). Both writes are
 * idempotent, so applying an outcome twice is harmless, and a roll-forward starts its incidents at the last mark. A
 * ledger marks the step done only after this returns.
 */
export async function applyStep(
  outcome: StepOutcome,
  parts: { readonly incidents: IncidentRepository; readonly outbox: Outbox },
  application: Application = {},
): Promise<void> {
  // A mark is written only after the notifications were queued: an application resumed at one need not queue them
  // again (idempotent, but a fleet's page is large, and a resumed step is short of time).
  if (!application.saved) await parts.outbox.enqueue(outcome.notifications);
  await application.afterQueued?.(outcome.notifications);
  const { changed, at } = outcome;
  const { writeUntil } = application;
  const inTime = writeUntil && batchesEndingBy(writeUntil.at, writeUntil.now);
  for (let saved = application.saved ?? 0; saved < changed.length; ) {
    if (inTime?.() === false) throw new StepUnfinishedError({ step: at, saved, changed: changed.length });
    const batch = changed.slice(saved, saved + (application.incidentsPerMark ?? INCIDENTS_PER_MARK));
    await parts.incidents.save(batch, at);
    saved += batch.length;
    if (saved < changed.length) await application.markSaved?.(saved);
  }
}
