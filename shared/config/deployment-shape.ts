import { configuredTripwire } from '../pipeline/tripwire-alarm.ts';
import { displayNameOf } from './cluster-identity.ts';
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
   * Some cluster here has a tripwire alarm in the ops account, on metrics of its workload account: in every Region,
   * since each cluster's tripwire lives in its own Region (`tripwireStacks`).
   */
  readonly crossAccountAlarms: boolean;
}

/**
 * The most tripwire alarms one stack holds. A tripwire alarm is one resource of about 3.1 KB of synthesized template
 * for a 30-character cluster name (five metrics, the expression, the name in each; `test/infra/fleet-quotas.test.ts`
 * measures every stack), and up to 4.5 KB for EKS's longest names (100 characters). 200 of them stay under both of
 * CloudFormation's limits: 500 resources and 1 MB of template uploaded through S3
 * ([CloudFormation quotas](https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html)).
 */
export const TRIPWIRES_PER_STACK = 200;

/** One stack of tripwire alarms, in the ops account, in the Region of the clusters it watches. */
export interface TripwireStackShape {
  readonly stackName: string;
  /** Undefined only for an environment-agnostic deployment's own Region. */
  readonly region?: string;
  readonly isOpsRegion: boolean;
  /** The clusters whose tripwires it holds, in configuration order. */
  readonly clusters: readonly ClusterConfig[];
  /** The workload accounts whose metrics its alarms read: their links and sharing roles must exist first. */
  readonly readsAccounts: readonly string[];
}

export function tripwireStackName(region: string | undefined, ops: OpsPlacement, bucket: number): string {
  return region === undefined || region === ops.region
    ? `TripwireStack-${bucket}`
    : `TripwireStack-${region}-${bucket}`;
}

/** FNV-1a over the UTF-16 code units: a hash that never changes between releases, unlike a Map's order. */
function stableHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/**
 * The tripwire stacks of a deployment: every cluster with a tripwire gets its alarm in its own Region (an alarm watches
 * only metrics of its own Region), in the ops account, which reads the workload accounts' metrics through its sink
 * there. A Region's clusters are dealt into a power of two of stacks by a hash of the cluster's name, the fewest that
 * keep every stack at `TRIPWIRES_PER_STACK` or less. The hash keeps a cluster in its stack when others come or go;
 * only when the count doubles does a cluster move, and then only to a stack that did not exist before (bucket k
 * splits into k and k + n), so deploying the existing stacks before the new ones never meets an alarm name twice.
 */
export function tripwireStacks(config: DeploymentConfig, ops: OpsPlacement): TripwireStackShape[] {
  const byRegion = new Map<string | undefined, ClusterConfig[]>();
  for (const cluster of config.clusters) {
    if (!hasTripwire(cluster, config)) continue;
    const region = cluster.region ?? ops.region;
    byRegion.set(region, [...(byRegion.get(region) ?? []), cluster]);
  }
  const regions = [...byRegion.keys()].sort((a, b) =>
    a === ops.region ? -1 : b === ops.region ? 1 : (a ?? '').localeCompare(b ?? ''),
  );
  return regions.flatMap((region) => {
    const clusters = byRegion.get(region) ?? [];
    const hashes = clusters.map((cluster) => stableHash(displayNameOf(cluster)));
    let count = 2 ** Math.ceil(Math.log2(Math.max(1, Math.ceil(clusters.length / TRIPWIRES_PER_STACK))));
    let buckets: ClusterConfig[][];
    for (;;) {
      const dealt: ClusterConfig[][] = Array.from({ length: count }, () => []);
      for (const [index, cluster] of clusters.entries()) dealt[(hashes[index] ?? 0) % count]?.push(cluster);
      buckets = dealt;
      if (dealt.every((bucket) => bucket.length <= TRIPWIRES_PER_STACK)) break;
      count *= 2;
    }
    return buckets.map(
      (bucket, index): TripwireStackShape => ({
        stackName: tripwireStackName(region, ops, index),
        ...(region !== undefined && { region }),
        isOpsRegion: region === ops.region,
        clusters: bucket,
        readsAccounts: [
          ...new Set(
            bucket.flatMap((cluster) => (isLinked(cluster, ops) && cluster.accountId ? [cluster.accountId] : [])),
          ),
        ].sort(),
      }),
    );
  });
}

/**
 * The stack each workload account with a tripwire deploys once, in the ops Region: CloudWatch-CrossAccountSharingRole.
 * IAM is global and role names are unique in an account, so the role cannot live in the per-Region source stacks.
 */
export const SHARING_ROLE_STACK = 'SharingRoleStack';

/** The workload accounts whose metrics some tripwire alarm reads, sorted. */
export function sharingRoleAccounts(config: DeploymentConfig, ops: OpsPlacement): string[] {
  return [...new Set(tripwireStacks(config, ops).flatMap((stack) => stack.readsAccounts))].sort();
}

/** The ops account's stack in a Region other than its own that forwards events there: tripwire changes, node events. */
export function forwardingStackName(region: string): string {
  return `ForwardingStack-${region}`;
}

/** One Region outside the ops Region where the ops account forwards events to the ops Region's default bus. */
export interface ForwardingRegion {
  readonly region: string;
  readonly stackName: string;
  /** Tripwire alarms are here: their state changes reach the tripwire function through the ops Region. */
  readonly tripwires: boolean;
  /** Clusters of the ops account are here: their node events reach the node-churn function the same way. */
  readonly opsAccountNodes: boolean;
}

/** The Regions other than the ops Region with tripwires or with clusters of the ops account, sorted. */
export function forwardingRegions(config: DeploymentConfig, ops: OpsPlacement): ForwardingRegion[] {
  const opsRegion = ops.region;
  if (opsRegion === undefined) return [];
  const byRegion = new Map<string, { tripwires: boolean; opsAccountNodes: boolean }>();
  for (const cluster of config.clusters) {
    const region: string = cluster.region ?? opsRegion;
    if (region === opsRegion) continue;
    const entry = byRegion.get(region) ?? { tripwires: false, opsAccountNodes: false };
    byRegion.set(region, entry);
    entry.tripwires ||= hasTripwire(cluster, config);
    entry.opsAccountNodes ||= !isLinked(cluster, ops);
  }
  return [...byRegion.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([region, entry]) => ({ region, stackName: forwardingStackName(region), ...entry }));
}

/**
 * Whether the cluster gets a tripwire alarm (infra/tripwires.ts builds it from the same definition): tripwires are on
 * and the cluster provides the signals of at least one of its legs.
 */
export function hasTripwire(cluster: ClusterConfig, config: Pick<DeploymentConfig, 'poll'>): boolean {
  return configuredTripwire(cluster, config.poll.tripwire) !== undefined;
}

/**
 * The clusters the synthesized app gives a tripwire alarm: every configured cluster with a tripwire, whatever its
 * account or Region (`tripwireStacks`). Replay and backtest emulate a tripwire only for these among the configured
 * clusters, so they never read a cluster faster than the deployment would.
 */
export function deployedTripwires(config: DeploymentConfig): ReadonlySet<string> {
  return new Set(tripwireStacks(config, opsPlacement(config)).flatMap((stack) => stack.clusters.map(displayNameOf)));
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
    entry.clusters.push(displayNameOf(cluster));
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
        crossAccountAlarms: tripwires,
        ...(existingSink ? { existingSink } : { sinkStack: isOpsRegion ? OPS_STACK : metricsSinkStackName(region) }),
      };
    });
}
