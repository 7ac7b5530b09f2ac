import * as z from 'zod';
import type { ShardDependencies, ShardTask } from '../../shared/pipeline/shards.ts';
import { evaluateShard } from '../../shared/pipeline/shards.ts';

const clusters = z.array(z.string().min(1));

/** The body of a shard message, as the poller sends it (shared/pipeline/shards.ts). */
export const shardTaskSchema = z.object({
  at: z.number().int().nonnegative(),
  shard: z.number().int().nonnegative(),
  shards: z.number().int().positive(),
  full: clusters,
  minute: clusters,
  muted: clusters,
  armed: clusters,
}) satisfies z.ZodType<ShardTask>;

export interface ShardOutcome {
  readonly at: string;
  readonly shard: number;
  readonly clusters: number;
  readonly unreadableClusters: number;
}

/**
 * The worker's use case: evaluate each shard of the batch (the event source mapping hands one at a time) and report
 * it under its step. A failure fails the invocation, so that SQS delivers the shard again, and after the queue's
 * receive count moves it to the dead-letter queue; the poller counts its clusters unreadable meanwhile.
 */
export async function evaluateShards(deps: ShardDependencies, tasks: readonly ShardTask[]): Promise<ShardOutcome[]> {
  const outcomes: ShardOutcome[] = [];
  for (const task of tasks) {
    const report = await evaluateShard(deps, task);
    outcomes.push({
      at: new Date(task.at).toISOString(),
      shard: task.shard,
      clusters: report.clusters.length,
      unreadableClusters: report.unreadable.reduce((n, u) => n + u.clusters.length, 0),
    });
  }
  return outcomes;
}
