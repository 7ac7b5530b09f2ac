import type { Activity } from './ports.ts';

/** Keep what belongs to [from, to): incidents opened in it or open during it, notifications and polls in it. */
export function activityOf(all: Activity, from: number, to: number): Activity {
  const within = (time: number) => from <= time && time < to;
  return {
    incidents: all.incidents.filter((i) => {
      const opened = Date.parse(i.openedAt);
      const resolved = i.resolvedAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(i.resolvedAt);
      return opened < to && resolved >= from;
    }),
    notifications: all.notifications.filter((n) => within(Date.parse(n.notification.at))),
    polls: all.polls.filter((p) => within(p.at)),
  };
}
