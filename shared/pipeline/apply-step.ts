import type { AfterQueued, IncidentRepository, Outbox, StepOutcome } from './ports.ts';

/**
 * Apply a committed step's outcome: notifications into the outbox first, then `afterQueued` (the poll delivers them
 * there), then incidents. In this order a death between the writes leaves notifications whose incidents are not yet
 * saved, which the roll-forward of the step completes; the other order would leave open incidents whose page was
 * never queued. And the page does not wait for the incidents: a fleet outage opens an incident per cluster, thousands
 * of writes into one partition, which DynamoDB serves at most 1,000 write units a second
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html). Both writes are
 * idempotent, so applying an outcome twice is harmless. A ledger marks the step done only after this returns.
 */
export async function applyStep(
  outcome: StepOutcome,
  parts: { readonly incidents: IncidentRepository; readonly outbox: Outbox },
  afterQueued?: AfterQueued,
): Promise<void> {
  await parts.outbox.enqueue(outcome.notifications);
  await afterQueued?.(outcome.notifications);
  await parts.incidents.save(outcome.changed, outcome.at);
}
