import type { IncidentStore } from '../pipeline/ports.ts';
import { buildDigest, type DigestInput } from './build-digest.ts';
import type { Digest } from './digest.ts';
import { type DigestWeek, previousWeek } from './iso-week.ts';

export type StoreDigestInput = Omit<DigestInput, 'activity' | 'previous' | 'week'> & {
  readonly store: Pick<IncidentStore, 'activityBetween'>;
};

/** Read a week and the week before from the store, and build the digest of the week. */
export async function digestOfWeek(input: StoreDigestInput, week: DigestWeek): Promise<Digest> {
  const before = previousWeek(week);
  const [activity, previous] = await Promise.all([
    input.store.activityBetween(week.from, week.to),
    input.store.activityBetween(before.from, before.to),
  ]);
  return buildDigest({ ...input, activity, previous, week });
}
