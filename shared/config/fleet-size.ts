import { InputError } from '../errors.ts';

/**
 * The largest fleet one deployment watches: the fleet whose worst minute (every tripwire armed) is measured to be read
 * and evaluated within the minute, within the regional GetMetricData quota and in 512 MB, in one invocation or fanned
 * out to shards (docs/scaling.md, docs/resilience.md). Past it, a minute's reads would outrun the quota floor and the
 * next poll; split the fleet across deployments.
 */
export const MAX_FLEET_CLUSTERS = 10_000;

/** A configuration that names more clusters than one deployment watches. */
export class FleetSizeError extends InputError {}

/** Refuse a fleet over MAX_FLEET_CLUSTERS before anything reads its clusters one by one. */
export function checkFleetSize(value: unknown, file: string): void {
  const clusters = (value as { clusters?: unknown } | null)?.clusters;
  if (Array.isArray(clusters) && clusters.length > MAX_FLEET_CLUSTERS) {
    throw new FleetSizeError(file, [
      {
        path: '$.clusters',
        message: `names ${clusters.length} clusters; one deployment watches at most ${MAX_FLEET_CLUSTERS}: split the fleet across deployments (docs/resilience.md)`,
      },
    ]);
  }
}
