import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Incident } from '../shared/engine/incident.ts';
import { overlaps } from '../shared/pipeline/activity.ts';
import type { IncidentRepository } from '../shared/pipeline/ports.ts';
import { type DynamoDbTable, unlessConditionFails } from './dynamodb-table.ts';
import { decodeItem, incidentItem } from './table-items.ts';
import {
  DAY_INDEX,
  dayIndexEntry,
  dayOf,
  daysFrom,
  openIncidentKey,
  PARTITION,
  resolvedIncidentKey,
} from './table-keys.ts';

const DAY_MS = 86_400_000;

/**
 * Incidents in DynamoDB: open ones in the `OPEN` partition, read with a consistent query every poll; resolved ones
 * under `INCIDENT`, indexed by the day they resolved.
 */
export class DynamoDbIncidentRepository implements IncidentRepository {
  constructor(private readonly table: DynamoDbTable) {}

  async openIncidents(): Promise<Incident[]> {
    const items = await this.table.partition(PARTITION.open);
    return items.map((item) => decodeItem(incidentItem, item).incident);
  }

  /** Every write here is idempotent, so applying a step twice (a roll-forward after a partial apply) is harmless. */
  async save(changed: readonly Incident[], step: number): Promise<void> {
    // Fenced by the step's time: a late writer of an older step can never overwrite what a newer step wrote.
    const fence = {
      TableName: this.table.name,
      ConditionExpression: 'attribute_not_exists(appliedStep) OR appliedStep <= :at',
      ExpressionAttributeValues: { ':at': step },
    };
    for (const incident of changed) {
      if (incident.status === 'open') {
        await unlessConditionFails(
          this.table.db.send(
            new PutCommand({ ...fence, Item: { ...openIncidentKey(incident.id), incident, appliedStep: step } }),
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
    }
  }

  async overlapping(from: number, to: number): Promise<Incident[]> {
    // Incidents still open were possibly opened long before the period: the OPEN partition has them all.
    // An incident overlapping the period resolved after it started: its resolved day is between `from` and now.
    const resolvedDays = daysFrom(from, Math.max(to, this.table.now() + DAY_MS)).map(DAY_INDEX.resolvedOn);
    const [resolved, open] = await Promise.all([this.table.days(resolvedDays), this.openIncidents()]);
    const incidents = new Map<string, Incident>();
    for (const incident of open) incidents.set(incident.id, incident);
    // An incident moving from OPEN to INCIDENT can be seen in both: the resolved copy is the newer one.
    for (const item of resolved) {
      const { incident } = decodeItem(incidentItem, item);
      incidents.set(incident.id, incident);
    }
    return [...incidents.values()].filter((i) => overlaps(i, from, to));
  }
}
