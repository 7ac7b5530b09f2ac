import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Incident } from '../../shared/engine/incident.ts';
import type { IncidentRepository } from '../../shared/pipeline/ports.ts';
import { unlessConditionFails } from './conditions.ts';
import { DynamoDbIncidentReader } from './incident-reader.ts';
import { writeEach } from './table.ts';
import { DAY_INDEX, dayIndexEntry, dayOf, openIncidentKey, resolvedIncidentKey } from './table-keys.ts';

/** What this module sends: the incident writes of a step. */
export const IAM_ACTIONS = ['dynamodb:PutItem', 'dynamodb:DeleteItem'] as const;

/**
 * Incidents in DynamoDB: open ones in the `OPEN` partition, read with a consistent query every poll; resolved ones
 * under `INCIDENT`, indexed by the day they resolved. The reads are the reader's; this adds the writes.
 */
export class DynamoDbIncidentRepository extends DynamoDbIncidentReader implements IncidentRepository {
  /** Every write here is idempotent, so applying a step twice (a roll-forward after a partial apply) is harmless. */
  async save(changed: readonly Incident[], step: number): Promise<void> {
    // Fenced by the step's time: a late writer of an older step can never overwrite what a newer step wrote.
    const fence = {
      TableName: this.table.name,
      ConditionExpression: 'attribute_not_exists(appliedStep) OR appliedStep <= :at',
      ExpressionAttributeValues: { ':at': step },
    };
    await writeEach(changed, async (incident) => {
      if (incident.status === 'open') {
        await unlessConditionFails(
          this.table.db.send(
            new PutCommand({
              ...fence,
              // Kept for the retention past its last change: the open item of a cluster that no longer exists, which
              // no poll will change again, expires rather than staying in the table for good.
              Item: {
                ...openIncidentKey(incident.id),
                incident,
                appliedStep: step,
                expiresAt: this.table.expiresAt(step),
              },
            }),
          ),
        );
      } else {
        // Indexed by the day it resolved: a week asks for what resolved from its start on, plus what is still open.
        const resolvedAt = incident.resolvedAt ?? incident.openedAt;
        await this.table.db.send(
          new PutCommand({
            TableName: this.table.name,
            Item: {
              ...resolvedIncidentKey(incident.id),
              incident,
              ...dayIndexEntry(DAY_INDEX.resolvedOn(dayOf(resolvedAt)), resolvedAt),
              expiresAt: this.table.expiresAt(Date.parse(resolvedAt)),
            },
          }),
        );
        await unlessConditionFails(
          this.table.db.send(new DeleteCommand({ ...fence, Key: openIncidentKey(incident.id) })),
        );
      }
    });
  }
}
