import { configuredTripwire } from '../pipeline/tripwire-alarm.ts';
import { type ClusterConfig, type DeploymentConfig, parseSinkArn } from './deployment-config.ts';

/**
 * Where the deployment's stacks go, worked out from the configuration alone, so that the ops account's credentials and
 * each workload account's credentials synthesize the same app: the stacks the docs tell each of them to deploy.
 */

/** The ops account and Region: from `ops` in the configuration, else from the credentials that run cdk. */
export interface OpsPlacement {
  readonly account?: string;
  readonly region?: string;
}

/** The stack the ops account deploys: everything but the sinks of other Regions. */
export const OPS_STACK = 'OpsStack';

/** The stack every workload account deploys in the ops stack's own Region. */
export const SOURCE_ACCOUNT_STACK = 'SourceAccountStack';

/** One Region whose clusters live in workload accounts: their metrics are read through the ops account's sink there. */
export interface LinkedRegion {
  readonly region: string;
  /** The ops stack's own Region: the OpsStack holds its sink. Any other Region has a `MetricsSinkStack-REGION`. */
  readonly isOpsRegion: boolean;
  /** The workload accounts with clusters here: the sink's policy names them, and each deploys `sourceStack`. */
  readonly accounts: readonly string[];
  readonly clusters: readonly string[];
  /** The stack each of `accounts` deploys: `SourceAccountStack`, or `SourceAccountStack-REGION` outside the ops Region. */
  readonly sourceStack: string;
  /** The stack in the ops account that holds the sink, or undefined when the configuration names an existing sink. */
  readonly sinkStack?: string;
  /** The sink the ops account already has here (`ops.existingSinks`), which the stacks use instead of creating one. */
  readonly existingSink?: string;
  /**
   * Some cluster here has a tripwire alarm in the ops account, on metrics of its workload account: only in the ops
   * Region, since an alarm watches only metrics of its own Region.
   */
  readonly crossAccountAlarms: boolean;
}

/**
 * Whether the cluster gets a tripwire alarm (infra/tripwires.ts builds it from the same definition): tripwires are on
 * and the cluster provides the signals of at least one of its legs.
 */
export function hasTripwire(cluster: ClusterConfig, config: Pick<DeploymentConfig, 'poll'>): boolean {
  return configuredTripwire(cluster, config.poll.tripwire) !== undefined;
}

/**
 * The ops account and Region: what the configuration names, or else what the credentials say. A configuration with
 * clusters in other accounts must name both (the verdict refuses it otherwise), so the credentials decide only for a
 * deployment that lives in one account.
 */
export function opsPlacement(config: DeploymentConfig, credentials: OpsPlacement = {}): OpsPlacement {
  const sinkAccount = config.ops.existingSinks.map((arn) => parseSinkArn(arn)?.account).find(Boolean);
  const account = config.ops.accountId ?? sinkAccount ?? credentials.account;
  const region = config.ops.region ?? credentials.region;
  return { ...(account && { account }), ...(region && { region }) };
}

/** A cluster whose metrics are read through a sink: it names an account, and that account is not the ops account. */
export function isLinked(cluster: { readonly accountId?: string }, ops: OpsPlacement): boolean {
  return cluster.accountId !== undefined && cluster.accountId !== ops.account;
}

export function metricsSinkStackName(region: string): string {
  return `MetricsSinkStack-${region}`;
}

export function sourceAccountStackName(region: string, ops: OpsPlacement): string {
  return region === ops.region ? SOURCE_ACCOUNT_STACK : `${SOURCE_ACCOUNT_STACK}-${region}`;
}

/**
 * The Regions with linked clusters, the ops Region first. OAM is regional: a workload account links to a sink in the
 * Region of its metrics, so each such Region needs a sink of the ops account and a link from each of its accounts.
 * A cluster without a `region` is in the ops Region.
 */
export function linkedRegions(config: DeploymentConfig, ops: OpsPlacement): LinkedRegion[] {
  const byRegion = new Map<string, { accounts: Set<string>; clusters: string[]; tripwires: boolean }>();
  for (const cluster of config.clusters) {
    const region = cluster.region ?? ops.region;
    if (!isLinked(cluster, ops) || region === undefined || cluster.accountId === undefined) continue;
    const entry = byRegion.get(region) ?? { accounts: new Set<string>(), clusters: [], tripwires: false };
    byRegion.set(region, entry);
    entry.accounts.add(cluster.accountId);
    entry.clusters.push(cluster.name);
    entry.tripwires ||= hasTripwire(cluster, config);
  }
  const existing = new Map(config.ops.existingSinks.map((arn) => [parseSinkArn(arn)?.region, arn]));
  return [...byRegion.entries()]
    .sort(([a], [b]) => (a === ops.region ? -1 : b === ops.region ? 1 : a.localeCompare(b)))
    .map(([region, { accounts, clusters, tripwires }]): LinkedRegion => {
      const existingSink = existing.get(region);
      const isOpsRegion = region === ops.region;
      return {
        region,
        isOpsRegion,
        accounts: [...accounts].sort(),
        clusters,
        sourceStack: sourceAccountStackName(region, ops),
        crossAccountAlarms: isOpsRegion && tripwires,
        ...(existingSink ? { existingSink } : { sinkStack: isOpsRegion ? OPS_STACK : metricsSinkStackName(region) }),
      };
    });
}
