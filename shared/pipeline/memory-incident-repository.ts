import type { Incident } from '../engine/incident.ts';
import { overlaps } from './activity.ts';
import type { IncidentRepository } from './ports.ts';

/** Incidents in memory, for replay and tests. */
export class MemoryIncidentRepository implements IncidentRepository {
  private readonly incidents = new Map<string, Incident>();

  async openIncidents(): Promise<Incident[]> {
    return this.all().filter((i) => i.status === 'open');
  }

  async save(changed: readonly Incident[], _step: number): Promise<void> {
    for (const incident of changed) this.incidents.set(incident.id, incident);
  }

  async overlapping(from: number, to: number): Promise<Incident[]> {
    return this.all().filter((i) => overlaps(i, from, to));
  }

  /** Every incident ever saved, for reports. */
  all(): Incident[] {
    return [...this.incidents.values()];
  }
}
