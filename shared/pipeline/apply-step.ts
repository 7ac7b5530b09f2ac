import type { IncidentRepository, Outbox, StepOutcome } from './ports.ts';

/**
 * Apply a committed step's outcome: notifications into the outbox first, then incidents. In this order a death
 * between the two leaves notifications whose incidents are not yet saved, which the roll-forward of the step
 * completes; the other order would leave open incidents whose page was never queued. Both writes are idempotent, so
 * applying an outcome twice is harmless. A ledger marks the step done only after this returns.
 */
export async function applyStep(
  outcome: StepOutcome,
  parts: { readonly incidents: IncidentRepository; readonly outbox: Outbox },
): Promise<void> {
  await parts.outbox.enqueue(outcome.notifications);
  await parts.incidents.save(outcome.changed, outcome.at);
}
