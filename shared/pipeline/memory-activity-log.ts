import { readActivity, within } from './activity.ts';
import type { Activity, ActivityLog, IncidentRepository, Outbox, PollRecord, Silences } from './ports.ts';

/**
 * The poll log in memory, for replay and tests; a period's incidents, notifications and silences come from their own
 * ports.
 */
export class MemoryActivityLog implements ActivityLog {
  private readonly polls: PollRecord[] = [];

  constructor(
    private readonly sources: {
      readonly incidents: IncidentRepository;
      readonly outbox: Outbox;
      readonly silences: Silences;
    },
  ) {}

  async recordPoll(record: PollRecord): Promise<void> {
    this.polls.push(record);
  }

  activityBetween(from: number, to: number): Promise<Activity> {
    const polls = this.polls.filter((p) => within(p.at, from, to));
    return readActivity(this.sources, Promise.resolve(polls), from, to);
  }
}
