import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchMetricSource } from '../../aws/cloudwatch/metric-source.ts';
import { type ClusterConfig, clusterSchema } from '../../shared/config/deployment-config.ts';
import { type CloudWatchServer, startCloudWatchServer } from '../../support/cloudwatch-server.ts';

const credentials = { accessKeyId: 'AKIDLOOPBACK', secretAccessKey: 'loopback-secret' };
const END = Date.UTC(2024, 0, 1, 12, 0);
/** A datapoint quota a tenth of the real one, so that a read of a hundred clusters meets it within a test. */
const RECENT_DPS = 18_000;
/** A shard worker's share of the older tier: a fifth of 396,000, for five workers in flight. */
const WORKER_OLDER_DPS = 79_200;
const clusters: ClusterConfig[] = Array.from({ length: 100 }, (_, index) =>
  clusterSchema.parse({ name: `c${index}`, source: { profile: 'eks' } }),
);
const request = { clusters: clusters.map((c) => c.name), end: END, samples: 30, stepSeconds: 60 };

describe('CloudWatchMetricSource under the GetMetricData quotas', () => {
  let server: CloudWatchServer;
  let client: CloudWatchClient;
  const source = (recent: number, older = 396_000) =>
    new CloudWatchMetricSource({
      clientFor: () => client,
      clusters,
      datapointsPerSecond: { recent, older },
      now: () => END,
    });

  beforeAll(async () => {
    server = await startCloudWatchServer({
      now: () => END,
      quotas: { recentDatapointsPerSecond: RECENT_DPS, olderDatapointsPerSecond: WORKER_OLDER_DPS },
    });
    // No retries: a throttled call is an unreadable batch, so that pacing, not the SDK's back-off, is what is tested.
    client = new CloudWatchClient({ endpoint: server.endpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
  });
  afterAll(async () => {
    client.destroy();
    await server.close();
  });
  beforeEach(async () => {
    server.reset();
    await new Promise((resolve) => setTimeout(resolve, 1100));
  });

  it('paces its calls by the datapoints each could return, so that no call is throttled', async () => {
    const paced = source(RECENT_DPS);

    const started = performance.now();
    const reading = await paced.read(request);
    const seconds = (performance.now() - started) / 1000;

    expect(reading.unreadable).toEqual([]);
    expect(reading.windows.size).toBe(100);
    expect(server.quota.throttled).toEqual({ 'transactions per second': 0, 'datapoints per second': 0 });
    // 100 clusters × 15 metrics × 30 periods = 45,000 datapoints: more than two seconds of an 18,000 quota.
    expect([paced.spent.datapoints, server.quota.datapoints]).toEqual([45_000, 45_000]);
    expect(seconds).toBeGreaterThan(2);
  });

  it('sizes its calls so that a whole number of them spends each second’s datapoints', async () => {
    const paced = source(RECENT_DPS);

    const reading = await paced.read(request);

    // 30 periods a query: calls of 500 queries (15,000 datapoints) fit the 18,000 quota once a second and leave a
    // sixth of it unspent; calls of 300 (9,000) fit twice and spend it all.
    expect(reading.unreadable).toEqual([]);
    expect(paced.spent).toEqual({ calls: 5, datapoints: 45_000 });
  });

  it('keeps each call of a full read within a shard worker’s share of the older tier', async () => {
    // Seven hours a query, a StartTime older than three hours: a page holds 240 queries (100,800 datapoints), more
    // than the 79,200 a worker may spend in a second, which a call that large would overrun each time it went alone.
    const worker = source(RECENT_DPS, WORKER_OLDER_DPS);

    const reading = await worker.read({ ...request, clusters: request.clusters.slice(0, 20), samples: 420 });

    expect(reading.unreadable).toEqual([]);
    expect(server.quota.throttled['datapoints per second']).toBe(0);
    // 20 clusters × 15 metrics × 420 periods, in two calls of 150 queries (63,000 datapoints each).
    expect(worker.spent).toEqual({ calls: 2, datapoints: 126_000 });
  });

  it('meets throttling when it spends more datapoints a second than the quota allows', async () => {
    const reading = await source(10 * RECENT_DPS).read(request);

    expect(server.quota.throttled['datapoints per second']).toBeGreaterThan(0);
    expect(reading.unreadable.length).toBeGreaterThan(0);
    expect(reading.unreadable[0]?.error).toMatch(/^Throttling: Rate exceeded/);
  });
});
