import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Incident } from '../../shared/engine/incident.ts';
import type { IncidentRepository } from '../../shared/pipeline/ports.ts';
import { unlessConditionFails } from './conditions.ts';
import { DynamoDbIncidentReader } from './incident-reader.ts';
import { itemWriteUnits, PartitionWritePacers } from './partition-pacing.ts';
import { type DynamoDbTable, writeEach } from './table.ts';
import { DAY_INDEX, dayIndexEntry, dayOf, openIncidentKey, PARTITION, resolvedIncidentKey } from './table-keys.ts';
import { TABLE_SCHEMA } from './table-schema.ts';

/** What this module sends: the incident writes of a step. */
export const IAM_ACTIONS = ['dynamodb:PutItem', 'dynamodb:DeleteItem'] as const;

/**
 * Incidents in DynamoDB: open ones in the `OPEN` partition, read with a consistent query every poll; resolved ones
 * under `INCIDENT`, indexed by the day they resolved. The reads are the reader's; this adds the writes.
 */
export class DynamoDbIncidentRepository extends DynamoDbIncidentReader implements IncidentRepository {
  /**
   * Every incident a step changed goes into the same few partitions (`OPEN`; `INCIDENT`, its day in the `byDay` index
   * and the `OPEN` delete when it resolves): paced to what DynamoDB serves one partition, so that a fleet outage's
   * thousands of them are written, not refused.
   */
  readonly #pacers: PartitionWritePacers;

  constructor(table: DynamoDbTable) {
    super(table);
    this.#pacers = new PartitionWritePacers(table.partitionWriteUnits);
  }

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
        // Kept for the retention past its last change: the open item of a cluster that no longer exists, which no
        // poll will change again, expires rather than staying in the table for good.
        const item = {
          ...openIncidentKey(incident.id),
          incident,
          appliedStep: step,
          expiresAt: this.table.expiresAt(step),
        };
        await this.#pacers.reserve([PARTITION.open], itemWriteUnits(item));
        await unlessConditionFails(this.table.db.send(new PutCommand({ ...fence, Item: item })));
      } else {
        // Indexed by the day it resolved: a week asks for what resolved from its start on, plus what is still open.
        const resolvedAt = incident.resolvedAt ?? incident.openedAt;
        const day = DAY_INDEX.resolvedOn(dayOf(resolvedAt));
        const item = {
          ...resolvedIncidentKey(incident.id),
          incident,
          ...dayIndexEntry(day, resolvedAt),
          expiresAt: this.table.expiresAt(Date.parse(resolvedAt)),
        };
        // The put writes the item and its copy in the index's partition of the day; the delete frees as many units
        // of the open item, about the same size.
        await this.#pacers.reserve(
          [PARTITION.resolved, `${TABLE_SCHEMA.dayIndex.name}:${day}`, PARTITION.open],
          itemWriteUnits(item),
        );
        await this.table.db.send(new PutCommand({ TableName: this.table.name, Item: item }));
        await unlessConditionFails(
          this.table.db.send(new DeleteCommand({ ...fence, Key: openIncidentKey(incident.id) })),
        );
      }
    });
  }
}
