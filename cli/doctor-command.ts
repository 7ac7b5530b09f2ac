import { cloudWatchClients } from '../aws/clients.ts';
import { alarmStates, metricPresence, type PresenceProgress } from '../aws/cloudwatch/inventory.ts';
import { attachedLinks } from '../aws/cloudwatch/oam-links.ts';
import { mapLimited } from '../aws/concurrency.ts';
import { EKS_LOOKUPS_IN_FLIGHT, eksClients, eksNodeFacts } from '../aws/eks/node-facts.ts';
import { readConfigFile } from '../io/input-files.ts';
import { countsNodeChurn } from '../shared/churn/node-termination.ts';
import { displayNameOf } from '../shared/config/cluster-identity.ts';
import { type ClusterConfig, parseSinkArn } from '../shared/config/deployment-config.ts';
import {
  hasTripwire,
  isLinked,
  metricsSinkStackName,
  OPS_STACK,
  opsPlacement,
} from '../shared/config/deployment-shape.ts';
import { CONTAINER_INSIGHTS_METRICS, containerInsightsMetric } from '../shared/config/metric-catalogue.ts';
import { type ClusterObservation, type Diagnosis, diagnose, renderDiagnosis } from '../shared/doctor/diagnosis.ts';
import type { NodeKindObservation } from '../shared/doctor/node-kind.ts';
import { tripwireAlarmName } from '../shared/pipeline/alarm-names.ts';
import { configuredPlan } from '../shared/pipeline/build-plan.ts';
import { type MetricSpec, signalSources } from '../shared/pipeline/query-plan.ts';
import { DAY_MS } from '../shared/time.ts';
import { awsFailure } from './aws-errors.ts';
import { type CommandOutput, PROGRESS_INTERVAL_MS, progress, UsageError, withProgress } from './command.ts';
import { defineCommand } from './command-line.ts';
import { stackOutput } from './stack-outputs.ts';

/** The metrics' newest datapoint is looked for this far back; a signal is fresh within the poller's look-back. */
const HISTORY_MS = DAY_MS;

export const DOCTOR_COMMAND = defineCommand({
  name: 'doctor',
  summary: 'say what each cluster really reports: metrics, Container Insights, node groups, links, tripwires, coverage',
  usage: ['sentinel doctor --config FILE [--stack NAME] [--sink-identifier SINK_ARN] [--json]'],
  options: {
    config: { type: 'string', value: 'FILE', description: 'the deployment configuration whose clusters to check' },
    stack: {
      type: 'string',
      value: 'NAME',
      description: `the deployed ops stack (default ${OPS_STACK}): its tripwire alarms, and the SinkArn of its stacks`,
    },
    'sink-identifier': {
      type: 'string',
      value: 'SINK_ARN',
      description: 'a sink of the ops account, to check the workload accounts linked to it (OAM ListAttachedLinks)',
    },
    json: { type: 'boolean', description: 'print the diagnosis as JSON instead of text (the exit code is the same)' },
  },
  notes: [
    'Read-only, with the default AWS credential chain of the ops account (AWS_PROFILE, AWS_REGION, ...): it needs',
    'cloudwatch:ListMetrics, GetMetricData and DescribeAlarms, oam:ListAttachedLinks and cloudformation:DescribeStacks;',
    'for a cluster whose source.nodes is unset, eks:DescribeCluster, ListNodegroups and ListFargateProfiles.',
    'Exit codes: 0 every page-level rule runs with all its signals on every cluster, 1 some do not (the fixes follow),',
    '3 AWS could not be asked (credentials, permissions, network): then nothing is known about the coverage.',
  ],
  run: (values, _, out) => doctorCommand(values, out),
});

export interface DoctorOptions {
  readonly config?: string;
  readonly stack?: string;
  readonly 'sink-identifier'?: string;
  readonly json?: boolean;
}

/**
 * `sentinel doctor`: observe every cluster of the configuration in the real accounts, then diagnose. While it asks,
 * it says how far it has got every `progressEveryMs` (where the output takes progress: stderr at a terminal).
 */
export async function doctorCommand(
  options: DoctorOptions,
  out: CommandOutput,
  now = Date.now(),
  progressEveryMs = PROGRESS_INTERVAL_MS,
): Promise<number> {
  if (!options.config) throw new UsageError('--config is required');
  const loaded = readConfigFile(options.config);
  const { config } = loaded;
  const plan = configuredPlan(loaded);
  const ops = opsPlacement(config, { ...(process.env.AWS_REGION && { region: process.env.AWS_REGION }) });
  const opsRegion = ops.region ?? 'us-east-1';
  const clientFor = cloudWatchClients(opsRegion);
  const eksFor = eksClients();
  const deployment = options.stack ?? OPS_STACK;
  const sinks = await sinksByRegion(config.ops.existingSinks, options, deployment, config.clusters, ops);
  const links = new Map<string, Promise<Set<string>>>();
  const linkedTo = (sink: string, region: string) => {
    let accounts = links.get(sink);
    if (!accounts) {
      accounts = attachedLinks(sink, region).then((found) => new Set(found.map((link) => link.account)));
      links.set(sink, accounts);
    }
    return accounts;
  };
  progress(
    out,
    `Checking ${config.clusters.length} cluster(s) in CloudWatch${ops.account ? ` (ops account ${ops.account})` : ''}...`,
  );
  const tally: DoctorTally = {
    presence: { names: 0, namesListed: 0, metrics: 0, metricsRead: 0 },
    eks: { clusters: 0, lookedUp: 0 },
  };
  // Every cluster's tripwire is an alarm in its own Region (its TripwireStack): each Region is asked for its own, at
  // one DescribeAlarms call a second, 100 alarms a call (inventory.ts).
  const tripwired = config.clusters.filter((cluster) => hasTripwire(cluster, config));
  const tripwireRegions = [...new Set(tripwired.map((c) => c.region ?? opsRegion))];
  const alarmsRead = Promise.all(
    tripwireRegions.map(async (region) =>
      (
        await alarmStates(
          clientFor(region),
          tripwired
            .filter((c) => (c.region ?? opsRegion) === region)
            .map((c) => tripwireAlarmName(deployment, displayNameOf(c))),
        )
      ).map((alarm) => [`${region}/${alarm.name}`, alarm] as const),
    ),
  );
  // Meanwhile every cluster's metrics at once: ListMetrics name by name across each Region, not metric by metric, and
  // the newest datapoints of many clusters a GetMetricData call, each paced in its Region (inventory.ts).
  const sourcesOf = config.clusters.map((cluster) => signalSources(cluster));
  const presenceRead = metricPresence(
    config.clusters.map((cluster, index) => ({
      owner: {
        client: clientFor(cluster.region ?? opsRegion),
        ...(isLinked(cluster, ops) && { accountId: cluster.accountId }),
      },
      metrics: (sourcesOf[index] ?? []).flatMap((s) => s.metrics),
      // Container Insights is on when CloudWatch lists the cluster's node count, which it publishes for every cluster.
      probes: [containerInsightsMetric(cluster.name, CONTAINER_INSIGHTS_METRICS.nodes)],
    })),
    now - HISTORY_MS,
    now,
    tally.presence,
  );
  // And EKS beside CloudWatch: each Region's lookups at EKS's own pace (node-facts.ts).
  const nodeKindsRead = nodeKinds(
    config.clusters,
    (cluster) => cluster.region ?? opsRegion,
    (cluster) => (isLinked(cluster, ops) ? cluster.accountId : undefined),
    eksFor,
    tally.eks,
  );
  const [alarmsByRegion, presences, kinds] = await withProgress(
    out,
    () => tallyLine(tally),
    Promise.all([alarmsRead, presenceRead, nodeKindsRead]),
    progressEveryMs,
  );
  const alarms = new Map(alarmsByRegion.flat());
  const observations = await Promise.all(
    config.clusters.map(async (cluster, index): Promise<ClusterObservation> => {
      const region = cluster.region ?? opsRegion;
      const linked = isLinked(cluster, ops) ? cluster.accountId : undefined;
      const sources = sourcesOf[index] ?? [];
      const presence = presences[index];
      const presenceOf = (metric: MetricSpec) => presence?.metrics.find((p) => p.spec === metric);
      const sink = sinks.get(region);
      const alarmName = tripwireAlarmName(deployment, displayNameOf(cluster));
      const alarm = alarms.get(`${region}/${alarmName}`);
      const nodeKind = kinds.get(cluster);
      return {
        cluster: displayNameOf(cluster),
        region,
        ...(linked && { linkedAccount: linked }),
        signals: sources.map(({ signal, metrics }) => ({
          signal,
          metrics: metrics.map((spec) => {
            const found = presenceOf(spec);
            return {
              namespace: spec.namespace,
              metricName: spec.metricName,
              dimensions: spec.dimensions,
              listed: found?.listed ?? false,
              ...(found?.newestAt !== undefined && { newestAt: found.newestAt }),
            };
          }),
        })),
        containerInsights: presence?.probes[0] ?? false,
        nodeChurn: countsNodeChurn(cluster),
        ...(nodeKind && { nodeKind, nodeGroups: cluster.source.nodeGroups }),
        ...(linked && {
          link: sink
            ? { status: (await linkedTo(sink, region)).has(linked) ? 'present' : 'missing', sink }
            : { status: 'unknown' },
        }),
        ...(tripwired.includes(cluster) && {
          tripwire: { alarm: alarmName, ...(alarm && { state: alarm.state, reason: alarm.reason }) },
        }),
      };
    }),
  );
  const diagnosis = diagnose(plan.clusters, observations, {
    now,
    freshMs: plan.lookback * plan.stepSeconds * 1000,
    stepSeconds: plan.stepSeconds,
  });
  if (options.json) out.stdout(JSON.stringify(diagnosisJson(diagnosis), null, 2));
  else for (const line of renderDiagnosis(diagnosis, now)) out.stdout(line);
  return diagnosis.healthy ? 0 : 1;
}

/** How far a doctor run has got, counted as it asks. */
interface DoctorTally {
  readonly presence: PresenceProgress;
  readonly eks: NodeKindTally;
}

/** The clusters whose kind doctor asks EKS about, and those it has its answer for. */
interface NodeKindTally {
  clusters: number;
  lookedUp: number;
}

/** The progress line, as "listed 120 of 300 metric names, looked up 40 of 900 clusters in EKS". */
function tallyLine({ presence, eks }: DoctorTally): string {
  return [
    `listed ${presence.namesListed} of ${presence.names} metric names`,
    ...(presence.metrics > 0
      ? [`read the newest datapoints of ${presence.metricsRead} of ${presence.metrics} metrics`]
      : []),
    ...(eks.clusters > 0 ? [`looked up ${eks.lookedUp} of ${eks.clusters} clusters in EKS`] : []),
  ].join(', ');
}

/**
 * How EKS says the nodes run of each EKS cluster whose configuration does not say (`source.nodes`), by cluster. Each
 * Region's clusters are asked EKS_LOOKUPS_IN_FLIGHT at a time, every Region at once: each Region has a pace of its own,
 * so a Region with many clusters holds back no other.
 */
async function nodeKinds(
  clusters: readonly ClusterConfig[],
  regionOf: (cluster: ClusterConfig) => string,
  linkedAccountOf: (cluster: ClusterConfig) => string | undefined,
  eksFor: (region: string) => Parameters<typeof eksNodeFacts>[0],
  tally: NodeKindTally,
): Promise<Map<ClusterConfig, NodeKindObservation>> {
  const unsaid = clusters.filter((cluster) => cluster.source.profile === 'eks' && cluster.source.nodes === undefined);
  const asked = unsaid.filter((cluster) => linkedAccountOf(cluster) === undefined);
  tally.clusters = asked.length;
  const byRegion = new Map<string, ClusterConfig[]>();
  for (const cluster of asked) {
    const inRegion = byRegion.get(regionOf(cluster)) ?? [];
    inRegion.push(cluster);
    byRegion.set(regionOf(cluster), inRegion);
  }
  const kinds = new Map<ClusterConfig, NodeKindObservation>();
  const ask = async (cluster: ClusterConfig) => {
    const region = regionOf(cluster);
    const linked = linkedAccountOf(cluster);
    kinds.set(cluster, await askNodeKind(cluster.name, region, linked, () => eksFor(region)));
    if (linked === undefined) tally.lookedUp++;
  };
  await Promise.all([
    ...unsaid.filter((cluster) => linkedAccountOf(cluster) !== undefined).map(ask),
    ...[...byRegion.values()].map((inRegion) => mapLimited(inRegion, EKS_LOOKUPS_IN_FLIGHT, ask)),
  ]);
  return kinds;
}

/**
 * How EKS says the cluster's nodes run, for a cluster whose configuration does not say. EKS answers only the account
 * that owns the cluster (there is no sink to read it through), so a workload account's cluster is not asked; a
 * cluster EKS does not know, or a call it refuses, is said for that cluster alone: the kind only trims the hints of
 * its pages, so it never changes the coverage, nor doctor's exit code.
 */
async function askNodeKind(
  name: string,
  region: string,
  linkedAccount: string | undefined,
  client: () => Parameters<typeof eksNodeFacts>[0],
): Promise<NodeKindObservation> {
  if (linkedAccount) {
    return {
      status: 'not-asked',
      reason: `in account ${linkedAccount}, whose EKS the ops account cannot read: with that account's credentials, aws eks describe-cluster, list-nodegroups and list-fargate-profiles --region ${region} say how its nodes run`,
    };
  }
  try {
    return { status: 'described', facts: await eksNodeFacts(client(), name) };
  } catch (error) {
    if ((error as Error)?.name === 'ResourceNotFoundException') {
      return {
        status: 'not-asked',
        reason: `EKS has no cluster named ${name} in ${region} (ResourceNotFoundException): check the cluster's name and region in the configuration`,
      };
    }
    const failure = awsFailure(error);
    if (!failure) throw error;
    return { status: 'not-asked', reason: `EKS could not be asked: ${failure.message}` };
  }
}

/**
 * The ops account's sink of each Region with linked clusters: named in the configuration, given on the command line,
 * or the SinkArn output of the stack that holds it (the ops stack in its Region, MetricsSinkStack-REGION elsewhere).
 */
async function sinksByRegion(
  existing: readonly string[],
  options: DoctorOptions,
  deployment: string,
  clusters: readonly { readonly region?: string; readonly accountId?: string }[],
  ops: { readonly account?: string; readonly region?: string },
): Promise<Map<string, string>> {
  const sinks = new Map<string, string>();
  const add = (arn: string | undefined) => {
    const region = arn === undefined ? undefined : parseSinkArn(arn)?.region;
    if (arn && region && !sinks.has(region)) sinks.set(region, arn);
  };
  for (const arn of existing) add(arn);
  const given = options['sink-identifier'];
  if (given !== undefined) {
    if (!parseSinkArn(given)) throw new UsageError(`--sink-identifier "${given}" is not an OAM sink ARN`);
    add(given);
  }
  if (options.stack === undefined) return sinks;
  const regions = new Set(clusters.filter((c) => isLinked(c, ops)).map((c) => c.region ?? ops.region ?? ''));
  for (const region of regions) {
    if (sinks.has(region)) continue;
    add(
      region === ops.region || ops.region === undefined
        ? await stackOutput(deployment, 'SinkArn')
        : await stackOutput(metricsSinkStackName(region), 'SinkArn', region),
    );
  }
  return sinks;
}

/** The diagnosis as `--json` prints it: each cluster named first, its provided signals as a list. */
function diagnosisJson(diagnosis: Diagnosis) {
  return {
    healthy: diagnosis.healthy,
    clusters: diagnosis.clusters.map(({ observation, provided, ...judged }) => ({
      cluster: observation.cluster,
      provided: [...provided],
      ...judged,
      observation,
    })),
  };
}
