import type { DeploymentConfig } from '../config/deployment-config.ts';
import type { RuleSet } from '../engine/rule-set.ts';
import type { ActivityLog } from '../pipeline/ports.ts';
import { buildDigest, type DigestInput } from './build-digest.ts';
import { costModel, pollerMemoryMb } from './cost-model.ts';
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

/**
 * What the digest of a deployment reads: its activity log, its configuration and rules, and the prices of its poller
 * at the memory its fleet deploys it with; `name` says which deployment the digest is of.
 */
export function deploymentDigestInput(
  activityLog: StoreDigestInput['activityLog'],
  deployed: { readonly config: DeploymentConfig; readonly ruleSet: RuleSet },
  name: string,
): StoreDigestInput & { readonly config: DeploymentConfig } {
  const { config, ruleSet } = deployed;
  return {
    activityLog,
    ruleSet,
    config,
    costModel: costModel(pollerMemoryMb(config.clusters.length)),
    source: { kind: 'deployment', name },
  };
}
