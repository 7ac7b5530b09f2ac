import type { InputProblem } from '../errors.ts';
import { jsonPath } from '../schema-errors.ts';

/**
 * A cluster is the account and Region it runs in and its EKS name: EKS names are unique only within one account and
 * Region, so a fleet may call a cluster `main` in every account. The pipeline keys everything it keeps of a cluster
 * (its incidents, silences, node churn, tripwire, pages and the SNS `cluster` attribute) by the cluster's display
 * name, which is unique in the fleet: the EKS name when no other cluster shares it, so a fleet of distinct names reads
 * and stores exactly what it did before display names existed.
 */
export interface ClusterId {
  /** Unset: the ops account (the configuration may not know it before deploy). */
  readonly accountId?: string | undefined;
  /** Unset: the ops Region. */
  readonly region?: string | undefined;
  /** The EKS cluster name, as CloudWatch's `ClusterName` dimension and the EKS API know it. */
  readonly name: string;
}

/** A cluster as the configuration gives it: its identity, and the display name it sets or the one derived for it. */
export interface NamedCluster extends ClusterId {
  readonly displayName?: string | undefined;
}

/**
 * Display names end up in DynamoDB sort keys split on `#`, in alarm names, in label values and in silence matchers:
 * letters, digits and `-_.@/`, at most 128 characters (a Prometheus-style label value's bound here, `labelsSchema`).
 */
export const DISPLAY_NAME = /^[0-9A-Za-z][A-Za-z0-9_.@/-]*$/;
export const DISPLAY_NAME_MAX = 128;

/** The name the pipeline keys and shows a cluster by. */
export function displayNameOf(cluster: NamedCluster): string {
  return cluster.displayName ?? cluster.name;
}

/** The identity with the ops account and Region filled in where the cluster leaves them unset. */
export function resolvedId(
  cluster: ClusterId,
  ops: { accountId?: string | undefined; region?: string | undefined } = {},
): ClusterId {
  return {
    name: cluster.name,
    accountId: cluster.accountId ?? ops.accountId,
    region: cluster.region ?? ops.region,
  };
}

/** `main@111122223333/eu-west-1`: the display name given to a cluster whose EKS name another cluster shares. */
export function derivedDisplayName(id: ClusterId): string {
  return `${id.name}@${id.accountId ?? 'ops'}/${id.region ?? 'ops'}`;
}

/**
 * Each cluster's display name, in the order given: the one it sets, else its EKS name when no other cluster has that
 * name, else `derivedDisplayName`. Problems: two entries with the same account, Region and name (one cluster
 * listed twice), a shared name whose account or Region nothing names, a derived name too long, and two clusters
 * that end up with the same display name. Each problem names both entries.
 */
export function assignDisplayNames(
  clusters: readonly NamedCluster[],
  ops: { accountId?: string | undefined; region?: string | undefined } = {},
): { readonly displayNames: string[]; readonly problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  const at = (index: number, field: string) => jsonPath(['clusters', index, field]);
  const ids = clusters.map((c) => resolvedId(c, ops));
  const sharing = new Map<string, number[]>();
  clusters.forEach((c, index) => {
    sharing.set(c.name, [...(sharing.get(c.name) ?? []), index]);
  });
  const identities = new Map<string, number>();
  ids.forEach((id, index) => {
    const identity = JSON.stringify([id.accountId ?? '', id.region ?? '', id.name]);
    const first = identities.get(identity);
    if (first === undefined) identities.set(identity, index);
    else {
      problems.push({
        path: at(index, 'name'),
        message: `duplicate cluster "${id.name}": clusters[${first}] and clusters[${index}] name the same account (${id.accountId ?? 'the ops account'}), Region (${id.region ?? 'the ops Region'}) and name; remove one, or fix its accountId or region`,
      });
    }
  });
  const displayNames = clusters.map((c, index) => {
    if (c.displayName !== undefined) return c.displayName;
    const shared = sharing.get(c.name) ?? [];
    if (shared.length < 2) return c.name;
    const id = ids[index] ?? c;
    if (id.accountId === undefined || id.region === undefined) {
      const others = shared.filter((i) => i !== index).map((i) => `clusters[${i}]`);
      problems.push({
        path: at(index, 'displayName'),
        message: `"${c.name}" is also the name of ${others.join(', ')}: give this cluster a "displayName", or name its "accountId" and "region" (or ops.accountId and ops.region) so that one is derived`,
      });
      return c.name;
    }
    const derived = derivedDisplayName(id);
    if (derived.length > DISPLAY_NAME_MAX) {
      problems.push({
        path: at(index, 'displayName'),
        message: `"${c.name}" is shared with another cluster and "${derived}" is longer than ${DISPLAY_NAME_MAX} characters: give this cluster a shorter "displayName"`,
      });
    }
    return derived;
  });
  const byDisplay = new Map<string, number>();
  displayNames.forEach((display, index) => {
    const first = byDisplay.get(display);
    if (first === undefined) byDisplay.set(display, index);
    else if (!problems.some((p) => p.path === at(index, 'name'))) {
      problems.push({
        path: at(index, clusters[index]?.displayName === undefined ? 'name' : 'displayName'),
        message: `clusters[${first}] and clusters[${index}] are both shown as "${display}": give one of them another "displayName"`,
      });
    }
  });
  return { displayNames, problems };
}

/** What a cluster name given by a user (a silence, a subscription, a command) refers to. */
export type ClusterLookup =
  | { readonly found: string }
  | { readonly ambiguous: readonly string[] }
  | { readonly unknown: true };

/**
 * The cluster a name given by a user means: the one whose display name it is, or the one cluster with that EKS name;
 * an EKS name several clusters share is ambiguous, and the answer lists their display names.
 */
export function lookUpCluster(name: string, clusters: readonly NamedCluster[]): ClusterLookup {
  if (clusters.some((c) => displayNameOf(c) === name)) return { found: name };
  const byEksName = clusters.filter((c) => c.name === name).map(displayNameOf);
  if (byEksName.length === 1 && byEksName[0] !== undefined) return { found: byEksName[0] };
  if (byEksName.length > 1) return { ambiguous: byEksName };
  return { unknown: true };
}

/** The message for an ambiguous name: the display names that tell the clusters apart. */
export function ambiguousClusterMessage(name: string, candidates: readonly string[]): string {
  return `"${name}" names ${candidates.length} clusters (in different accounts or Regions): name one of ${candidates.map((c) => `"${c}"`).join(', ')}`;
}

/**
 * The display name of the watched cluster an event names by its EKS name (a node's tags) or by one of its Auto Scaling
 * groups, from the account and Region the event came from: EKS names and group names are unique only there. A
 * cluster whose account or Region neither it nor `ops` names matches any; two that match is no answer.
 */
export function clusterFinder<C extends NamedCluster>(
  clusters: readonly C[],
  ops: { accountId?: string | undefined; region?: string | undefined },
  keysOf: (cluster: C) => readonly string[],
): (key: string, account: string, region: string) => string | undefined {
  const byKey = new Map<string, C[]>();
  for (const cluster of clusters)
    for (const key of keysOf(cluster)) byKey.set(key, [...(byKey.get(key) ?? []), cluster]);
  return (key, account, region) => {
    const found = (byKey.get(key) ?? []).filter((c) => {
      const id = resolvedId(c, ops);
      return (id.accountId ?? account) === account && (id.region ?? region) === region;
    });
    return found.length === 1 && found[0] ? displayNameOf(found[0]) : undefined;
  };
}
