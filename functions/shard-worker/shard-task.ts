import * as z from 'zod';
import { shardMessageJson } from '../../aws/sqs/shard-message.ts';
import type { ShardDependencies, ShardTask } from '../../shared/pipeline/shards.ts';
import { evaluateShard, shardClusters } from '../../shared/pipeline/shards.ts';

const clusters = z.array(z.string().min(1));
const positions = z.array(z.number().int().nonnegative());
const shardOf = {
  at: z.number().int().nonnegative(),
  shard: z.number().int().nonnegative(),
  shards: z.number().int().positive(),
  full: clusters,
  minute: clusters,
};
/** The fields that say which of the shard's clusters are muted and which armed. */
const MARKED = ['muted', 'armed'] as const;

/** A shard task as the poller sends it (shared/pipeline/shards.ts): the muted and armed clusters by position. */
const shardTaskSchema = z.object({ ...shardOf, muted: positions, armed: positions }).superRefine((task, ctx) => {
  const count = shardClusters(task).length;
  for (const field of MARKED) {
    task[field].forEach((position, i) => {
      if (position >= count) {
        ctx.addIssue({
          code: 'custom',
          path: [field, i],
          message: `position ${position} is past the shard's ${count} clusters`,
        });
      }
    });
  }
}) satisfies z.ZodType<ShardTask>;

/**
 * A shard task as the previous release's poller sent it, the muted and armed clusters by name: its messages may still
 * be on the queue while a deploy replaces the functions. Read as the task it names.
 */
const namedShardTaskSchema = z
  .object({ ...shardOf, muted: clusters, armed: clusters })
  .transform((task, ctx): ShardTask => {
    const position = new Map(shardClusters(task).map((cluster, i) => [cluster, i]));
    const positionsOf = (field: (typeof MARKED)[number]) =>
      task[field].flatMap((cluster, i) => {
        const found = position.get(cluster);
        if (found === undefined)
          ctx.addIssue({
            code: 'custom',
            path: [field, i],
            message: `"${cluster}" is not one of the shard's clusters`,
          });
        return found ?? [];
      });
    return { ...task, muted: positionsOf('muted'), armed: positionsOf('armed') };
  });

/**
 * The body of a shard message: the task's JSON gzipped in base64 (aws/sqs/shard-message.ts), or the previous release's
 * plain JSON with the clusters by name. What is wrong with a body is said at its path, as for any other event.
 */
export const shardMessageSchema = z.string().transform((body, ctx): ShardTask => {
  const named = body.trimStart().startsWith('{');
  let task: unknown;
  try {
    task = JSON.parse(named ? body : shardMessageJson(body));
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `neither a shard task's JSON nor its gzip in base64 (${String(error)})` });
    return z.NEVER;
  }
  const parsed = (named ? namedShardTaskSchema : shardTaskSchema).safeParse(task);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  return z.NEVER;
});

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
