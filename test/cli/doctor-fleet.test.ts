import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cloudWatchClients } from '../../aws/clients.ts';
import { LIST_METRICS_CALLS_PER_SECOND, metricPresence } from '../../aws/cloudwatch/inventory.ts';
import { doctorCommand } from '../../cli/doctor-command.ts';
import { readConfigFile } from '../../io/input-files.ts';
import { CONTAINER_INSIGHTS_METRICS, EKS_METRICS } from '../../shared/config/metric-catalogue.ts';
import type { ClusterObservation } from '../../shared/doctor/diagnosis.ts';
import { type MetricSpec, signalSources } from '../../shared/pipeline/query-plan.ts';
import { type AwsHarness, startAwsHarness, writeConfig } from '../../support/aws-harness.ts';
import { DEFAULT_ACCOUNT_ID } from '../../support/cloudwatch-server.ts';
import { LIST_METRICS_PER_SECOND } from '../../support/request-rate-quotas.ts';
import { CapturedCommandOutput } from '../support/command-output.ts';
import { reportEverySignal } from '../support/doctor-fixtures.ts';

/**
 * `sentinel doctor` on a fleet whose metrics the old one-ListMetrics-per-metric doctor would ask about in 480 calls at
 * once, 19 times what CloudWatch allows a Region in a second: 28 clusters in us-east-1 (20 in the ops account, 5 in
 * workload account A, 3 in B), and in eu-west-1 one cluster of the ops account and one of account C. Every cluster
 * reports every metric of its profile, two minutes ago, but for the exceptions below, which doctor must tell apart
 * exactly as it did metric by metric.
 */
const MINUTE = 60_000;
const NOW = Math.floor(Date.now() / MINUTE) * MINUTE;
const [A, B, C] = ['111111111111', '222222222222', '333333333333'];
const nodes = { nodes: 'managed-node-groups' };
const CLUSTERS = [
  ...Array.from({ length: 20 }, (_, i) => ({ name: `own-${i}`, source: nodes })),
  ...Array.from({ length: 5 }, (_, i) => ({ name: `a-${i}`, accountId: A, source: nodes })),
  ...Array.from({ length: 3 }, (_, i) => ({ name: `b-${i}`, accountId: B, source: nodes })),
  { name: 'own-euw1', region: 'eu-west-1', source: nodes },
  { name: 'c-euw1', region: 'eu-west-1', accountId: C, source: nodes },
];

/** What doctor must find of each exception: listed or not, and the newest datapoint of the last day. */
const EXCEPTIONS: Record<string, { metric: string; listed: boolean; newestAt?: number; why: string }[]> = {
  'own-3': [{ metric: EKS_METRICS.requests429, listed: false, why: 'published with an extra dimension only' }],
  'own-4': [{ metric: EKS_METRICS.requests5xx, listed: false, why: 'never published' }],
  'own-5': [
    { metric: CONTAINER_INSIGHTS_METRICS.nodes, listed: false, why: 'Container Insights off' },
    { metric: CONTAINER_INSIGHTS_METRICS.failedNodes, listed: false, why: 'Container Insights off' },
  ],
  'own-6': [{ metric: EKS_METRICS.requests, listed: true, why: 'last published two days ago' }],
  'a-1': [{ metric: EKS_METRICS.requests, listed: false, why: 'published in the ops account, not in A' }],
};

describe('sentinel doctor on a fleet', () => {
  let harness: AwsHarness;
  let observations: ClusterObservation[];
  let listCalls: number;
  let readCalls: number;
  let metricNames: Set<string>;

  beforeAll(async () => {
    harness = await startAwsHarness();
    const file = writeConfig({
      ops: { accountId: DEFAULT_ACCOUNT_ID, region: 'us-east-1' },
      poll: { tripwire: { enabled: false } },
      clusters: CLUSTERS,
      subscriptions: { paging: [{ subscribers: [{ protocol: 'email', endpoint: 'oncall@example.com' }] }] },
    });
    const clusters = readConfigFile(file).config.clusters;
    metricNames = new Set(clusters.flatMap((c) => signalSources(c).flatMap((s) => s.metrics.map((m) => m.metricName))));
    reportEverySignal(harness.cloudwatch, clusters, NOW, (cluster, metric) =>
      (EXCEPTIONS[cluster.name] ?? []).some((e) => e.metric === metric.metricName),
    );
    const put = (metricName: string, dimensions: Record<string, string>, minutesAgo: number, account?: string) =>
      harness.cloudwatch.put(
        {
          Namespace: EKS_METRICS.namespace,
          MetricData: [
            {
              MetricName: metricName,
              Dimensions: Object.entries(dimensions).map(([Name, Value]) => ({ Name, Value })),
              Timestamp: new Date(NOW - minutesAgo * MINUTE),
              Value: 1,
            },
          ],
        },
        account,
      );
    put(EKS_METRICS.requests429, { ClusterName: 'own-3', Code: '429' }, 2);
    put(EKS_METRICS.requests, { ClusterName: 'own-6' }, 2 * 24 * 60);
    put(EKS_METRICS.requests, { ClusterName: 'a-1' }, 2);
    const before = {
      list: harness.cloudwatch.calls.ListMetrics ?? 0,
      read: harness.cloudwatch.calls.GetMetricData ?? 0,
    };
    const output = new CapturedCommandOutput();
    await doctorCommand({ config: file, json: true }, output, NOW);
    observations = (JSON.parse(output.stdoutText) as { clusters: { observation: ClusterObservation }[] }).clusters.map(
      (c) => c.observation,
    );
    listCalls = (harness.cloudwatch.calls.ListMetrics ?? 0) - before.list;
    readCalls = (harness.cloudwatch.calls.GetMetricData ?? 0) - before.read;
  }, 60_000);

  afterAll(async () => {
    await harness.close();
  });

  it('asks ListMetrics once per metric name, Region and whose metrics, and CloudWatch throttles nothing', () => {
    expect(LIST_METRICS_CALLS_PER_SECOND).toBeLessThan(LIST_METRICS_PER_SECOND);
    expect(harness.cloudwatch.listMetricsQuota.throttled).toBe(0);
    expect(harness.cloudwatch.quota.throttled).toEqual({ 'transactions per second': 0, 'datapoints per second': 0 });
    // Two Regions, each with clusters of the ops account's own and linked ones: the old doctor asked 480 times.
    expect(listCalls).toBe(2 * 2 * metricNames.size);
    expect(readCalls).toBeLessThan(CLUSTERS.length / 3);
  });

  it('finds every metric as the one-metric-at-a-time doctor did: exact dimensions, in the owning account', () => {
    const found = observations.flatMap((o) =>
      o.signals.flatMap((s) =>
        s.metrics.map((m) => ({ cluster: o.cluster, metric: m.metricName, listed: m.listed, newestAt: m.newestAt })),
      ),
    );
    const expected = found.map(({ cluster, metric }) => {
      const exception = EXCEPTIONS[cluster]?.find((e) => e.metric === metric);
      return exception
        ? { cluster, metric, listed: exception.listed, newestAt: exception.newestAt }
        : { cluster, metric, listed: true, newestAt: NOW - 2 * MINUTE };
    });

    expect(observations.map((o) => o.cluster)).toEqual(CLUSTERS.map((c) => c.name));
    expect(found).toHaveLength(CLUSTERS.length * metricNames.size);
    expect(found).toEqual(expected);
  });

  it('says Container Insights is on wherever CloudWatch lists the cluster node count, in its own account', () => {
    expect(observations.filter((o) => !o.containerInsights).map((o) => o.cluster)).toEqual(['own-5']);
  });

  it('lists a name across a crowded Region as many pages as it wants metrics, then those left one by one', async () => {
    // 600 clusters no one asks about report before the one asked about, whose metric is on the second page.
    harness.cloudwatch.put(
      {
        Namespace: EKS_METRICS.namespace,
        MetricData: [...Array.from({ length: 600 }, (_, i) => `crowd-${i}`), 'late'].map((cluster) => ({
          MetricName: EKS_METRICS.requests,
          Dimensions: [{ Name: 'ClusterName', Value: cluster }],
          Timestamp: new Date(NOW - 2 * MINUTE),
          Value: 1,
        })),
      },
      C,
    );
    const late: MetricSpec = {
      namespace: EKS_METRICS.namespace,
      metricName: EKS_METRICS.requests,
      dimensions: { ClusterName: 'late' },
      stat: 'Sum',
    };
    const client = cloudWatchClients('us-east-1')('us-east-1');
    const before = harness.cloudwatch.calls.ListMetrics ?? 0;

    const [answer] = await metricPresence(
      [{ owner: { client, accountId: C }, metrics: [late] }],
      NOW - 10 * MINUTE,
      NOW,
    );

    expect(answer?.metrics.map((m) => [m.listed, m.newestAt])).toEqual([[true, NOW - 2 * MINUTE]]);
    // One page across the Region (500 of the 601), then the metric on its own.
    expect((harness.cloudwatch.calls.ListMetrics ?? 0) - before).toBe(2);
    expect(harness.cloudwatch.listMetricsQuota.throttled).toBe(0);
  });
});
