import type { Incident } from '../engine/incident.ts';
import { shortHash } from '../naming.ts';

import type { WatchPlan } from './watch-plan.ts';

/** Where in the slow cycle a cluster is read, stable across runs, so that a fleet's reads spread over the minutes. */
export function cadenceOffset(cluster: string, everySteps: number): number {
  return Number.parseInt(shortHash(cluster), 16) % everySteps;
}

/**
 * The clusters a poll reads at step `at`: those due on the slow cadence, those a tripwire armed, and those with an
 * open page, whose resolution and symptoms need every minute. The rest keep their state untouched until next time.
 */
export function dueClusters(
  plan: WatchPlan,
  at: number,
  armed: ReadonlySet<string>,
  open: readonly Incident[],
): string[] {
  const stepIndex = Math.round(at / (plan.stepSeconds * 1000));
  const paging = new Set(open.filter((i) => i.status === 'open' && i.severity === 'page').map((i) => i.cluster));
  const { everySteps } = plan.cadence;
  return plan.clusters
    .map((c) => c.name)
    .filter(
      (name) => armed.has(name) || paging.has(name) || (stepIndex + cadenceOffset(name, everySteps)) % everySteps === 0,
    );
}
