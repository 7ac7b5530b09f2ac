import type { Incident } from '../engine/incident.ts';
import { shortHash } from '../naming.ts';

import type { WatchPlan } from './watch-plan.ts';

/** Where in the slow cycle a cluster is read, stable across runs, so that a fleet's reads spread over the minutes. */
export function cadenceOffset(cluster: string, everySteps: number): number {
  return Number.parseInt(shortHash(cluster), 16) % everySteps;
}

/** The clusters a poll reads at step `at`, and how much of each. */
export interface DueReads {
  /** Due on the slow cadence: every rule, over the full lookback. */
  readonly full: readonly string[];
  /** Armed by a tripwire or holding an open page, between their full reads: the page-level rules only. */
  readonly minute: readonly string[];
}

/**
 * The clusters a poll reads at step `at`: those due on the slow cadence in full, and those a tripwire armed or with an
 * open page, whose onset, resolution and symptoms need every minute, by a minute read. The rest keep their state
 * untouched until next time.
 */
export function dueReads(plan: WatchPlan, at: number, armed: ReadonlySet<string>, open: readonly Incident[]): DueReads {
  const stepIndex = Math.round(at / (plan.stepSeconds * 1000));
  const paging = new Set(open.filter((i) => i.status === 'open' && i.severity === 'page').map((i) => i.cluster));
  const { everySteps } = plan.cadence;
  const full: string[] = [];
  const minute: string[] = [];
  for (const { name } of plan.clusters) {
    if ((stepIndex + cadenceOffset(name, everySteps)) % everySteps === 0) full.push(name);
    else if (armed.has(name) || paging.has(name)) minute.push(name);
  }
  return { full, minute };
}
