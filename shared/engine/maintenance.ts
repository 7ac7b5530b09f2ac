import type { MaintenancePolicy } from './rule.ts';

/** A declared window in which transient findings are held back. `cluster` undefined covers every cluster. */
export interface MaintenanceWindow {
  readonly cluster?: string;
  readonly from: number;
  readonly to: number;
  readonly reason: string;
}

export function inMaintenance(windows: readonly MaintenanceWindow[], cluster: string, at: number): boolean {
  return windows.some((w) => (w.cluster === undefined || w.cluster === cluster) && w.from <= at && at < w.to);
}

export function allowsNotification(policy: MaintenancePolicy, firing: ReadonlySet<string>): boolean {
  if (policy === 'notify') return true;
  if (policy === 'mute') return false;
  return policy.notifyWhenFiring.some((id) => firing.has(id));
}
