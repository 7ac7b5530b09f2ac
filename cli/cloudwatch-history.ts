import { cloudWatchClients } from '../aws/clients.ts';
import { CloudWatchMetricSource } from '../aws/cloudwatch/metric-source.ts';
import { readChurnSeries } from '../shared/churn/churn-metric-source.ts';
import type { NodeChurnReader } from '../shared/churn/node-churn.ts';
import { CHURN_SIGNALS, countsNodeChurn } from '../shared/churn/node-termination.ts';
import { displayNameOf } from '../shared/config/cluster-identity.ts';
import type { ClusterConfig } from '../shared/config/deployment-config.ts';
import type { SeriesBySignal } from '../shared/engine/signal-window.ts';
import { SentinelError } from '../shared/errors.ts';
import { DAY_MS } from '../shared/time.ts';
import { AwsRequestError } from './aws-errors.ts';
import { type CommandOutput, progress } from './command.ts';

/** CloudWatch keeps one-minute datapoints for 15 days; older history is only there at coarser periods. */
const ONE_MINUTE_RETENTION_MS = 15 * DAY_MS;

/** CloudWatch could not be read for some clusters: exit 3, as AWS could not be asked. */
export class CloudWatchUnreachableError extends AwsRequestError {}

export function metricSourceFor(clusters: readonly ClusterConfig[]): CloudWatchMetricSource {
  return new CloudWatchMetricSource({ clientFor: cloudWatchClients(process.env.AWS_REGION), clusters });
}

/**
 * Fetch one-minute history for the clusters between two times (the default AWS credential chain), showing progress
 * on stderr. Every cluster must be readable: a backtest on partial history would mislead. Node churn is no CloudWatch
 * metric: with `churn` (the deployed table), each cluster whose churn the node-churn function counts gets its
 * `nodes.replaced`, `nodes.interrupted` and `nodes.scaledin` as the poller reads them; without it, they are left out
 * and stderr says what that costs.
 */
export async function fetchHistory(
  clusters: readonly ClusterConfig[],
  from: number,
  to: number,
  now: number,
  out: CommandOutput,
  churn?: NodeChurnReader,
): Promise<Map<string, SeriesBySignal>> {
  if (to <= from) throw new SentinelError('--to must be later than --from');
  if (from < now - ONE_MINUTE_RETENTION_MS) {
    throw new SentinelError(
      `--from is ${Math.round((now - from) / DAY_MS)} days ago, but CloudWatch keeps one-minute data for 15 days`,
    );
  }
  const samples = Math.floor((to - from) / 60_000) + 1;
  progress(out, `Fetching ${samples} minutes of ${clusters.length} cluster(s) from CloudWatch...`);
  const { series, unreadable } = await metricSourceFor(clusters).readSeries(
    { clusters: clusters.map(displayNameOf), end: to, samples, stepSeconds: 60 },
    (done, total) => progress(out, `  fetched ${done}/${total} batches`),
  );
  const counted = clusters.filter(countsNodeChurn);
  if (churn) {
    for (const cluster of counted) {
      const name = displayNameOf(cluster);
      const read = await readChurnSeries(churn, name, CHURN_SIGNALS, { start: from, stepMs: 60_000, samples });
      if (read.error) unreadable.push({ clusters: [name], error: read.error });
      series.set(name, { ...series.get(name), ...read.series });
    }
  } else if (counted.length > 0) {
    out.stderr(
      `Node churn not read for ${counted.map(displayNameOf).join(', ')}: give --stack or --table to read it from the deployed table, as the poller does; without it node-repair-storm and node-churn are skipped.`,
    );
  }
  throwIfUnreadable(unreadable);
  return series;
}

export function throwIfUnreadable(unreadable: readonly { clusters: readonly string[]; error: string }[]): void {
  if (unreadable.length === 0) return;
  const lines = unreadable.map((u) => `  - ${u.clusters.join(', ')}: ${u.error}`);
  throw new CloudWatchUnreachableError(
    `could not read CloudWatch for ${unreadable.reduce((n, u) => n + u.clusters.length, 0)} cluster(s):\n${lines.join('\n')}\nCheck the AWS credentials and region (AWS_PROFILE, AWS_REGION) and network access to CloudWatch.`,
  );
}
