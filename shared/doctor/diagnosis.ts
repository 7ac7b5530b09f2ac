import { CHURN_SIGNALS } from '../churn/node-termination.ts';
import { CONTAINER_INSIGHTS_METRICS, EKS_METRICS } from '../config/metric-catalogue.ts';
import { conditionSignals } from '../engine/condition.ts';
import { coverageOf, describeCoverage, type RuleCoverage } from '../engine/coverage.ts';
import { evaluateCondition } from '../engine/evaluate-condition.ts';
import { type SeriesBySignal, SeriesWindow } from '../engine/signal-window.ts';
import type { SignalName } from '../engine/signals.ts';
import type { WatchedCluster } from '../pipeline/watch-plan.ts';
import { roughDuration } from '../time.ts';
import { describeNodeKind, type NodeKindObservation } from './node-kind.ts';

/**
 * What `sentinel doctor` makes of what CloudWatch, OAM and the alarms say about each cluster: which signals it really
 * provides, the coverage of each rule in the words replay and the poller use (full, partial, skipped), and what to
 * fix, each line naming the fix. Pure: the CLI gathers the observations, this judges them.
 */

/** One metric behind a signal, as CloudWatch answered for it. */
export interface MetricObservation {
  readonly namespace: string;
  readonly metricName: string;
  readonly dimensions: Readonly<Record<string, string>>;
  /** ListMetrics lists it (with exactly these dimensions). */
  readonly listed: boolean;
  /** Its newest datapoint of the last day, epoch ms. */
  readonly newestAt?: number;
}

export interface ClusterObservation {
  readonly cluster: string;
  readonly region: string;
  /** The workload account, for a cluster whose metrics are read through a sink. */
  readonly linkedAccount?: string;
  /** The metrics of each signal the cluster's source profile maps. */
  readonly signals: readonly { readonly signal: SignalName; readonly metrics: readonly MetricObservation[] }[];
  /** Any ContainerInsights metric with the cluster's name exists. */
  readonly containerInsights: boolean;
  /**
   * Whether the poller counts the cluster's node churn from the Auto Scaling and EC2 events (the node-churn function):
   * an EKS cluster with nodes whose `nodes.replaced` no custom metric replaces. Those signals need no metric.
   */
  readonly nodeChurn: boolean;
  /** For an EKS cluster whose configuration does not say how its nodes run: what EKS says about them. */
  readonly nodeKind?: NodeKindObservation;
  /** The Auto Scaling groups the configuration names for the cluster (`source.nodeGroups`). */
  readonly nodeGroups?: readonly string[];
  /** For a linked cluster: whether its account's link to the ops account's sink of its Region is attached. */
  readonly link?: { readonly status: 'present' | 'missing' | 'unknown'; readonly sink?: string };
  /** The cluster's tripwire alarm, when the deployment gives it one; `state` absent: no such alarm exists. */
  readonly tripwire?: { readonly alarm: string; readonly state?: string; readonly reason?: string };
}

export interface ClusterDiagnosis {
  readonly observation: ClusterObservation;
  readonly provided: ReadonlySet<SignalName>;
  readonly coverage: readonly (RuleCoverage & { readonly severity: string })[];
  /** What to fix on this cluster, each line naming the fix. */
  readonly fixes: readonly string[];
  /** What to look at that does not change the coverage of a rule (a tripwire that reads nothing, say). */
  readonly notes: readonly string[];
}

export interface Diagnosis {
  readonly clusters: readonly ClusterDiagnosis[];
  /** Every page-level rule runs in full on every cluster: `sentinel doctor` exits 0. */
  readonly healthy: boolean;
}

/**
 * Missing data counts as breaching for a tripwire, and CloudWatch then gives this as the state reason ("Threshold
 * Crossed: no datapoints were received for 1 period and 1 missing datapoint was treated as [Breaching].").
 */
const NO_DATAPOINTS = /no datapoints were received/i;

/**
 * Judge each cluster: a signal is provided when one of its metrics is listed and has a datapoint within the poller's
 * look-back (`freshMs`: what a poll reads; a signal with none in it is absent to the rules), and each rule is
 * evaluated on a window of exactly those signals, as replay evaluates a scenario's.
 */
export function diagnose(
  clusters: readonly WatchedCluster[],
  observations: readonly ClusterObservation[],
  options: { readonly now: number; readonly freshMs: number; readonly stepSeconds: number },
): Diagnosis {
  const diagnosed = observations.flatMap((observation) => {
    const watched = clusters.find((cluster) => cluster.name === observation.cluster);
    return watched ? [diagnoseCluster(watched, observation, options)] : [];
  });
  const healthy = diagnosed.every((cluster) =>
    cluster.coverage.every((rule) => rule.severity !== 'page' || rule.status === 'full'),
  );
  return { clusters: diagnosed, healthy };
}

function diagnoseCluster(
  watched: WatchedCluster,
  observation: ClusterObservation,
  { now, freshMs, stepSeconds }: { readonly now: number; readonly freshMs: number; readonly stepSeconds: number },
): ClusterDiagnosis {
  const fresh = (metric: MetricObservation) =>
    metric.listed && metric.newestAt !== undefined && now - metric.newestAt <= freshMs;
  const provided = new Set<SignalName>([
    ...observation.signals.filter(({ metrics }) => metrics.some(fresh)).map(({ signal }) => signal),
    ...(observation.nodeChurn ? CHURN_SIGNALS : []),
  ]);
  const series: SeriesBySignal = Object.fromEntries([...provided].map((signal) => [signal, [null]]));
  const window = new SeriesWindow(series, stepSeconds, 0);
  const coverage = watched.rules.map(({ rule, params, severity }) => ({
    ...coverageOf({ cluster: watched.name, rule: rule.id, ...evaluateCondition(rule.when, window, params) }),
    severity,
  }));
  const needed = new Set(watched.rules.flatMap(({ rule }) => conditionSignals(rule.when)));
  const fixes: string[] = [];
  const where = `--region ${observation.region}`;
  const as = observation.linkedAccount ? `, with the credentials of account ${observation.linkedAccount}` : '';
  if (observation.link?.status === 'missing') {
    fixes.push(
      `link account ${observation.linkedAccount} to the sink ${observation.link.sink}: deploy the SourceAccountStack of ${observation.region} there (docs/deploy.md, step 5)`,
    );
  } else if (observation.link?.status === 'unknown') {
    fixes.push(
      `name the ops account's sink of ${observation.region} (--sink-identifier, --stack, or ops.existingSinks) so that the link of account ${observation.linkedAccount} can be checked`,
    );
  }
  const sourced = new Set([
    ...observation.signals.map(({ signal }) => signal),
    ...(observation.nodeChurn ? CHURN_SIGNALS : []),
  ]);
  for (const signal of [...needed].filter((signal) => !sourced.has(signal)).sort()) {
    fixes.push(
      `publish ${signal}, which ${observation.cluster}'s source profile does not map, and name its metric under source.custom["${signal}"] in the configuration (the signals: shared/engine/signals.ts)`,
    );
  }
  const missing = observation.signals.filter(({ signal }) => needed.has(signal) && !provided.has(signal));
  const insights = missing.filter(({ metrics }) =>
    metrics.some((m) => m.namespace === CONTAINER_INSIGHTS_METRICS.namespace),
  );
  if (insights.length > 0 && !observation.containerInsights) {
    fixes.push(
      `turn on Container Insights for ${observation.cluster} (${insights.map((s) => s.signal).join(', ')})${as}: aws eks create-addon --cluster-name ${observation.cluster} --addon-name amazon-cloudwatch-observability ${where}`,
    );
  }
  for (const { signal, metrics } of missing) {
    if (insights.some((s) => s.signal === signal) && !observation.containerInsights) continue;
    const stale = metrics.find((m) => m.listed);
    const metric = stale ?? metrics[0];
    if (!metric) continue;
    const name = `${metric.namespace} ${metric.metricName} ${dimensionsOf(metric)}`;
    if (stale) {
      fixes.push(
        `${signal}: ${name} has not reported for ${age(now - (stale.newestAt ?? 0), stale.newestAt)}; restore its publisher`,
      );
    } else if (metric.namespace === EKS_METRICS.namespace) {
      fixes.push(
        `${signal}: EKS vends ${metric.metricName} for supported Kubernetes versions only (https://docs.aws.amazon.com/eks/latest/userguide/cloudwatch.html): update the cluster, or publish the signal as a custom metric`,
      );
    } else {
      fixes.push(
        `publish ${signal}: ${name} (for instance the CloudWatch agent scraping the apiserver's Prometheus metrics)`,
      );
    }
  }
  const notes: string[] = [];
  const tripwire = observation.tripwire;
  if (tripwire && tripwire.state === undefined) {
    notes.push(
      `tripwire ${tripwire.alarm} does not exist: deploy the OpsStack; until then ${observation.cluster} is read on the slow cadence only`,
    );
  } else if (tripwire && tripwire.state !== 'OK' && NO_DATAPOINTS.test(tripwire.reason ?? '') && provided.size > 0) {
    notes.push(
      `tripwire ${tripwire.alarm} is ${tripwire.state} on missing data while the cluster's metrics are fresh: the alarm cannot read them, so the cluster is read every minute at ten times the cost. ${observation.linkedAccount ? 'Create the cross-account alarm roles (docs/deploy.md, Cross-account tripwire alarms).' : 'Check the alarm metric.'}`,
    );
  }
  return { observation, provided, coverage, fixes, notes };
}

function dimensionsOf(metric: MetricObservation): string {
  return Object.entries(metric.dimensions)
    .map(([name, value]) => `${name}=${value}`)
    .join(',');
}

/** "3 minutes", "2 hours", "4 days". */
function age(ms: number, at: number | undefined): string {
  return at === undefined ? 'more than a day' : roughDuration(ms);
}

/** The doctor's report: per cluster what was found, each rule's coverage that is not full, and the fixes. */
export function renderDiagnosis(diagnosis: Diagnosis, now: number): string[] {
  const lines: string[] = [];
  for (const { observation: o, provided, coverage, notes } of diagnosis.clusters) {
    const metrics = o.signals.flatMap((s) => s.metrics);
    const listed = metrics.filter((m) => m.listed);
    const newest = listed.flatMap((m) => (m.newestAt === undefined ? [] : [m.newestAt]));
    lines.push(`${o.cluster} (${o.linkedAccount ? `account ${o.linkedAccount}, ` : ''}${o.region})`);
    const [youngest, oldest] = [Math.max(...newest), Math.min(...newest)].map((at) => age(now - at, at));
    const ages =
      youngest === oldest ? `newest datapoint ${youngest} old` : `newest datapoints ${youngest} to ${oldest} old`;
    lines.push(`  metrics: ${listed.length} of ${metrics.length} found${newest.length > 0 ? `, ${ages}` : ''}`);
    const absent = o.signals.filter((s) => !provided.has(s.signal)).map((s) => s.signal);
    if (absent.length > 0) lines.push(`  signals without fresh data: ${absent.join(', ')}`);
    const read = new Set(coverage.flatMap((c) => c.missing));
    const unmapped = [...read].filter((signal) => !o.signals.some((s) => s.signal === signal)).sort();
    if (unmapped.length > 0)
      lines.push(`  signals the rules read that no metric is configured for: ${unmapped.join(', ')}`);
    lines.push(`  Container Insights: ${o.containerInsights ? 'on' : 'off'}`);
    lines.push(
      `  node churn: ${o.nodeChurn ? 'counted from Auto Scaling and EC2 events by the node-churn function' : 'not counted from events (a custom metric, a custom profile, or Fargate only)'}`,
    );
    if (o.link) lines.push(`  link to ${o.link.sink ?? 'the sink'}: ${o.link.status}`);
    if (o.tripwire) lines.push(`  tripwire ${o.tripwire.alarm}: ${o.tripwire.state ?? 'missing'}`);
    const counts = (['full', 'partial', 'skipped'] as const).map(
      (status) => `${coverage.filter((c) => c.status === status).length} ${status}`,
    );
    lines.push(`  coverage: ${counts.join(', ')}`);
    for (const rule of coverage.filter((c) => c.status !== 'full')) {
      lines.push(`    ${describeCoverage(rule)} (${rule.severity})`);
    }
    for (const note of notes) lines.push(`  note: ${note}`);
    lines.push('');
  }
  const toFix = diagnosis.clusters.flatMap((c) => c.fixes.map((fix) => `  - ${c.observation.cluster}: ${fix}`));
  if (toFix.length > 0) lines.push('To fix:', ...toFix, '');
  const kinds = diagnosis.clusters.flatMap(({ observation: o }) =>
    o.nodeKind ? [`  - ${describeNodeKind(o.cluster, o.nodeKind, o.nodeGroups ?? [])}`] : [],
  );
  if (kinds.length > 0) {
    lines.push(
      'How the nodes run, where source.nodes does not say (it keeps only the hints that apply):',
      ...kinds,
      '',
    );
  }
  lines.push(
    diagnosis.healthy
      ? 'Every page-level rule runs with all its signals on every cluster.'
      : 'Some page-level rules do not run with all their signals: fix the above, then run sentinel doctor again.',
  );
  return lines;
}
