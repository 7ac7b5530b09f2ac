import type { Incident } from '../engine/incident.ts';
import type { Activity, IncidentRepository, Outbox, PollRecord, Silences } from './ports.ts';
import { silencesDuring } from './silence.ts';

/** Whether a time falls in [from, to). */
export function within(time: number, from: number, to: number): boolean {
  return from <= time && time < to;
}

/** Whether an incident was opened in [from, to) or open at any time during it. */
export function overlaps(incident: Incident, from: number, to: number): boolean {
  const opened = Date.parse(incident.openedAt);
  const resolved = incident.resolvedAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(incident.resolvedAt);
  return opened < to && resolved >= from;
}

/** Keep what belongs to [from, to): incidents opened in it or open during it, notifications and polls in it. */
export function activityOf(all: Activity, from: number, to: number): Activity {
  return {
    incidents: all.incidents.filter((i) => overlaps(i, from, to)),
    notifications: all.notifications.filter((n) => within(Date.parse(n.notification.at), from, to)),
    polls: all.polls.filter((p) => within(p.at, from, to)),
    ...(all.silences && { silences: silencesDuring(all.silences, from, to) }),
  };
}

/**
 * A period's activity: incidents, notifications and silences from the ports that hold them, polls from the log's own.
 */
export async function readActivity(
  sources: {
    readonly incidents: Pick<IncidentRepository, 'overlapping'>;
    readonly outbox: Pick<Outbox, 'raisedBetween'>;
    readonly silences: Silences;
  },
  polls: Promise<readonly PollRecord[]>,
  from: number,
  to: number,
): Promise<Activity> {
  const [incidents, notifications, pollRecords, silences] = await Promise.all([
    sources.incidents.overlapping(from, to),
    sources.outbox.raisedBetween(from, to),
    polls,
    sources.silences.endingAfter(from),
  ]);
  return { incidents, notifications, polls: pollRecords, silences: silencesDuring(silences, from, to) };
}
