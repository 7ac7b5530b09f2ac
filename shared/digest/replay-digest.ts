import type { DeploymentConfig } from '../config/deployment-config.ts';
import type { RuleSet } from '../engine/rule-set.ts';
import { activityOf } from '../pipeline/activity.ts';
import type { ReplayResult } from '../scenario/replay.ts';
import { buildDigest } from './build-digest.ts';
import { costModel, pollerMemoryMb } from './cost-model.ts';
import type { Digest } from './digest.ts';
import { previousWeek, weekContaining, weekOf } from './iso-week.ts';

export interface ReplayDigestOptions {
  readonly ruleSet: RuleSet;
  readonly config?: DeploymentConfig;
  /** The ISO week to report on; by default the week the scenario ends in. */
  readonly week?: string;
}

/** The digest a deployment would have sent for a week of a replayed scenario, in the configured time zone. */
export function replayDigest(result: ReplayResult, options: ReplayDigestOptions): Digest {
  const { scenario } = result;
  const timeZone = options.config?.digest.timeZone ?? 'UTC';
  const end = scenario.start + (scenario.steps - 1) * scenario.stepSeconds * 1000;
  const week = options.week === undefined ? weekContaining(end, timeZone) : weekOf(options.week, timeZone);
  const before = previousWeek(week);
  return buildDigest({
    activity: activityOf(result.activity, week.from, week.to),
    previous: activityOf(result.activity, before.from, before.to),
    week,
    ruleSet: options.ruleSet,
    ...(options.config && { config: options.config }),
    costModel: costModel(pollerMemoryMb(scenario.clusters.size)),
    source: { kind: 'replay', scenario: scenario.name, file: scenario.file },
    clusters: [...scenario.clusters.keys()],
  });
}
