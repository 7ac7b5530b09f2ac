import type { ActivityLog } from '../pipeline/ports.ts';
import { buildDigest, type DigestInput } from './build-digest.ts';
import type { Digest } from './digest.ts';
import { type DigestWeek, previousWeek } from './iso-week.ts';

export type StoreDigestInput = Omit<DigestInput, 'activity' | 'previous' | 'week'> & {
  readonly activityLog: Pick<ActivityLog, 'activityBetween'>;
};

/** Read a week and the week before from the activity log, and build the digest of the week. */
export async function digestOfWeek(input: StoreDigestInput, week: DigestWeek): Promise<Digest> {
  const before = previousWeek(week);
  const [activity, previous] = await Promise.all([
    input.activityLog.activityBetween(week.from, week.to),
    input.activityLog.activityBetween(before.from, before.to),
  ]);
  return buildDigest({ ...input, activity, previous, week });
}
