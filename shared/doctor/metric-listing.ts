import type { MetricSpec } from '../config/metric-catalogue.ts';

/**
 * How `sentinel doctor` asks CloudWatch which metrics exist: each metric name of a Region is listed across the Region
 * (ListMetrics, every page), instead of once per metric of each cluster, and each wanted metric is then matched
 * against the answers by its exact dimensions, which is what GetMetricData reads (ListMetrics also returns metrics
 * that carry more dimensions than a filter names).
 */

/** A metric wanted from one account: `account` is undefined for the caller's own, else one read through the sink. */
export interface WantedMetric {
  readonly account?: string;
  readonly spec: MetricSpec;
}

/** One ListMetrics question, asked page by page. */
export interface ListingQuery {
  readonly namespace: string;
  readonly metricName: string;
  /** The dimension filter: a wanted metric's own dimensions, when it is listed on its own. */
  readonly dimensions?: Readonly<Record<string, string>>;
  /** The linked accounts' metrics, through the sink (IncludeLinkedAccounts), instead of the caller's own. */
  readonly linked: boolean;
  /** The one linked account asked for (OwningAccount); every linked account when undefined. */
  readonly owningAccount?: string;
}

/** How one metric name of a Region is listed, for the caller's own metrics or for the linked accounts'. */
export interface ListingPlan {
  /** The name across the Region, without a dimension filter, of the one linked account when there is only one. */
  readonly across: ListingQuery;
  /** At most this many pages of it: as many calls as listing the wanted metrics one by one would take. */
  readonly pages: number;
  /**
   * Each wanted metric on its own, filtered by its dimensions, with the key it is found by (metricKey): asked, of the
   * metrics those pages did not find, only when the name had more pages than that.
   */
  readonly each: readonly { readonly query: ListingQuery; readonly key: string }[];
}

/**
 * How to list every wanted metric of one Region: one plan per metric name, for the caller's own metrics and for the
 * linked accounts' (all of them at once, so that a fleet of many accounts costs no more than one of few). A name
 * with one series per cluster (each EKS metric, Container Insights' node counts) takes a page per 500 clusters of
 * the Region, whatever the number wanted. A name whose series could be many per cluster (a node's or a pod's
 * metric, a custom one) or a Region crowded with clusters no one asked about could take any number of pages: the
 * listing across the Region stops once it took as many calls as its metrics one by one would, and lists those it
 * did not find one by one. A name never takes more than twice the calls it took metric by metric, and 10,000
 * clusters of one Region take 20 pages a name.
 */
export function listingPlans(wanted: readonly WantedMetric[]): ListingPlan[] {
  const groups = new Map<string, { across: ListingQuery; accounts: Set<string>; each: Map<string, ListingQuery> }>();
  for (const { account, spec } of wanted) {
    const linked = account !== undefined;
    const name = JSON.stringify([spec.namespace, spec.metricName, linked]);
    const group = groups.get(name) ?? {
      across: { namespace: spec.namespace, metricName: spec.metricName, linked },
      accounts: new Set<string>(),
      each: new Map<string, ListingQuery>(),
    };
    groups.set(name, group);
    if (account !== undefined) group.accounts.add(account);
    group.each.set(metricKey(account, spec.namespace, spec.metricName, spec.dimensions), {
      ...group.across,
      dimensions: spec.dimensions,
      ...(account !== undefined && { owningAccount: account }),
    });
  }
  return [...groups.values()].map(({ across, accounts, each }) => {
    const [only] = accounts;
    return {
      across: accounts.size === 1 && only !== undefined ? { ...across, owningAccount: only } : across,
      pages: each.size,
      each: [...each].map(([key, query]) => ({ query, key })),
    };
  });
}

/**
 * The key of a metric as listed or wanted: its account (undefined for the caller's own), namespace, name and exact
 * dimensions, in any order.
 */
export function metricKey(
  account: string | undefined,
  namespace: string,
  metricName: string,
  dimensions: Readonly<Record<string, string>>,
): string {
  const pairs = Object.entries(dimensions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([account ?? '', namespace, metricName, pairs]);
}
