import type { Incident } from '../../shared/engine/incident.ts';
import { overlaps } from '../../shared/pipeline/activity.ts';
import type { IncidentRepository } from '../../shared/pipeline/ports.ts';
import { DAY_MS } from '../../shared/time.ts';
import type { DynamoDbTable } from './table.ts';
import { decodeItem, incidentItem } from './table-items.ts';
import { DAY_INDEX, daysFrom, PARTITION } from './table-keys.ts';

/**
 * The reading half of the incidents in DynamoDB: open ones from the `OPEN` partition, resolved ones from the `byDay`
 * index. Queries only, through the table; what only reads (the digest) needs no more.
 */
export class DynamoDbIncidentReader implements Pick<IncidentRepository, 'openIncidents' | 'overlapping'> {
  constructor(protected readonly table: DynamoDbTable) {}

  async openIncidents(): Promise<Incident[]> {
    const items = await this.table.partition(PARTITION.open);
    return items.map((item) => decodeItem(incidentItem, item).incident);
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
