import type { Labels } from '../engine/matchers.ts';
import { displayNameOf, type NamedCluster } from './cluster-identity.ts';
import type { ClusterConfig, DeploymentConfig } from './deployment-config.ts';

/** A label name as Prometheus writes one (https://prometheus.io/docs/concepts/data_model/#metric-names-and-labels). */
export const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * The labels the pipeline gives every cluster itself, which grouping and matchers can name like configured ones:
 * a configured label cannot take these names. `rule` is a matcher's too (a silence's), so it is kept free as well.
 */
export const BUILT_IN_LABELS = ['cluster', 'account', 'region', 'rule'] as const;

export type { Labels } from '../engine/matchers.ts';

/** What `grouping.by` and matchers read of a cluster, whether it comes from a configuration or a scenario. */
export interface LabelledCluster extends NamedCluster {
  readonly labels?: Labels | undefined;
}

/**
 * A cluster's labels as grouping and matchers read them: its configured ones, its display name as `cluster`, and its account
 * and Region, which are the ops stack's when the configuration does not name them (the stack watches its own account
 * and Region then). Unknown, they are "", the value Alertmanager gives a label an alert does not carry.
 */
export function clusterLabels(
  cluster: LabelledCluster,
  ops: Pick<DeploymentConfig['ops'], 'accountId' | 'region'> = {},
): Labels {
  return {
    ...cluster.labels,
    cluster: displayNameOf(cluster),
    account: cluster.accountId ?? ops.accountId ?? '',
    region: cluster.region ?? ops.region ?? '',
  };
}

/**
 * The group a cluster's incidents belong to under `grouping.by`: the values of those labels, as Alertmanager's
 * `group_by` keys its aggregation groups. A label the cluster does not carry has the value "", so unlabelled clusters
 * share a group, as alerts without the label do in Alertmanager.
 */
export function groupKey(labels: Labels, by: readonly string[]): string {
  return JSON.stringify(by.map((name) => labels[name] ?? ''));
}

/** A subscription's label matcher: each named label must have the value, or one of the values, given. */
export type LabelMatch = Readonly<Record<string, string | readonly string[]>>;

export function matchesLabels(labels: Labels, match: LabelMatch): boolean {
  return Object.entries(match).every(([name, wanted]) => {
    const value = labels[name] ?? '';
    return typeof wanted === 'string' ? value === wanted : wanted.includes(value);
  });
}

/**
 * The clusters a subscription hears of: those it names, those its labels match, both when it gives both; undefined
 * when it gives neither (it hears of every cluster and of the pipeline's own alarms). The notification topics and the
 * paging integrations both filter on this list, so a label route and a cluster route behave alike.
 */
export function subscribedClusters(
  subscription: { readonly clusters?: readonly string[] | undefined; readonly labels?: LabelMatch | undefined },
  config: Pick<DeploymentConfig, 'clusters' | 'ops'>,
): string[] | undefined {
  const { clusters, labels } = subscription;
  if (clusters === undefined && labels === undefined) return undefined;
  if (labels === undefined) return [...new Set(clusters)];
  return config.clusters
    .filter((c: ClusterConfig) => clusters === undefined || clusters.includes(displayNameOf(c)))
    .filter((c) => matchesLabels(clusterLabels(c, config.ops), labels))
    .map(displayNameOf);
}
