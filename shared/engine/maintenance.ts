import { durationMs } from './duration.ts';
import { type Labels, type Matcher, matchesAll } from './matchers.ts';
import type { MaintenancePolicy } from './rule.ts';

/**
 * Something that holds notifications back for a while, with who decided it and until when: a maintenance window
 * from the configuration, or a silence stored at run time (`sentinel silence add`, shared/pipeline/silence.ts).
 * Both are this one shape, and the mute stage treats them alike: a mute holds back what each rule's maintenance
 * policy lets it hold back, and never a severe, sustained outage.
 */
export interface Mute {
  /** The stored silence's id; unset for a maintenance window, which its configuration or scenario names. */
  readonly id?: string;
  /** The cluster it covers; every cluster when unset. */
  readonly cluster?: string;
  /** The root rule it covers; every rule when unset. */
  readonly rule?: string;
  /**
   * A silence's matchers on the cluster's labels and the incident's root `rule` (`environment=staging`); with
   * `cluster` and `rule`, all must hold. A silence stored before matchers has `cluster` (and `rule`) alone.
   */
  readonly matchers?: readonly Matcher[];
  /**
   * Whether it holds back pages too: every incident it covers, whatever its rules' maintenance policies say. Only a
   * silence that says so (`--include-pages`), for a bounded time (SILENCE_BOUNDS.includePagesMaxSeconds).
   */
  readonly includePages?: boolean;
  readonly from: number;
  /** When it expires (exclusive). */
  readonly to: number;
  readonly reason: string;
  readonly author: string;
}

/** A maintenance window as a deployment configuration or a scenario declares it. `cluster` unset covers every cluster. */
export interface MaintenanceWindow {
  readonly cluster?: string;
  readonly from: number;
  readonly to: number;
  readonly reason: string;
  /** Who declared it; unset, the file that declares it is the author. */
  readonly author?: string;
}

/** A maintenance window as a mute; `declaredBy` names the file that declares it, the author when it names none. */
export function windowMute(window: MaintenanceWindow, declaredBy: string): Mute {
  return {
    ...(window.cluster !== undefined && { cluster: window.cluster }),
    from: window.from,
    to: window.to,
    reason: window.reason,
    author: window.author ?? declaredBy,
  };
}

/**
 * The mutes that cover an incident rooted in `rule` on `cluster` at `at`; `labels` are the cluster's, for matchers
 * (a cluster the configuration does not label has only its name).
 */
export function activeMutes(
  mutes: readonly Mute[],
  cluster: string,
  rule: string,
  at: number,
  labels: Labels = {},
): Mute[] {
  const target = { ...labels, cluster, rule };
  return mutes.filter(
    (m) =>
      (m.cluster === undefined || m.cluster === cluster) &&
      (m.rule === undefined || m.rule === rule) &&
      matchesAll(m.matchers ?? [], target) &&
      m.from <= at &&
      at < m.to,
  );
}

/** Whether any mute covers `cluster` (for some rule) at `at`: its matchers on the cluster's labels hold. */
export function clusterMuted(mutes: readonly Mute[], cluster: string, at: number, labels: Labels = {}): boolean {
  const target = { ...labels, cluster };
  return mutes.some(
    (m) =>
      (m.cluster === undefined || m.cluster === cluster) &&
      matchesAll(
        (m.matchers ?? []).filter((matcher) => matcher.name !== 'rule'),
        target,
      ) &&
      m.from <= at &&
      at < m.to,
  );
}

/** What a maintenance policy needs to know about the incident and its cluster at this step, as plain values. */
export interface PolicyContext {
  /** Rules whose condition is met on the cluster at this step. */
  readonly firing: ReadonlySet<string>;
  /** Rules whose `notifyWhen` condition holds on the cluster at this step, each with what it observed. */
  readonly severe: ReadonlyMap<string, string>;
  /** How long the incident has fired without going clear. */
  readonly firingForMs: number;
}

/**
 * Why `policy` lets an incident with `rule` among its members through a mute, or undefined when the mute holds it
 * back. `notify` always pages; `mute` never does; the conditional form pages once a rule it names fires on the same
 * cluster, once the incident has fired longer than `notifyAfter`, or while its `notifyWhen` condition holds.
 */
export function policyRelease(rule: string, policy: MaintenancePolicy, context: PolicyContext): string | undefined {
  if (policy === 'notify') return `${rule} is never muted`;
  if (policy === 'mute') return undefined;
  const named = (policy.notifyWhenFiring ?? []).filter((id) => context.firing.has(id));
  if (named.length > 0) return `${named.join(' and ')} fires on the same cluster`;
  const severe = context.severe.get(rule);
  if (policy.notifyWhen && severe !== undefined) return `${rule} is severe: ${severe}`;
  if (policy.notifyAfter && context.firingForMs >= durationMs(policy.notifyAfter)) {
    return `${rule} has fired for ${Math.round(context.firingForMs / 60_000)} min, longer than maintenance explains (${policy.notifyAfter})`;
  }
  return undefined;
}
