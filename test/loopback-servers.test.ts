import {
  CloudWatchClient,
  DescribeAlarmsCommand,
  GetMetricDataCommand,
  type GetMetricDataCommandOutput,
  type GetMetricDataInput,
  ListMetricsCommand,
  type MetricDataQuery,
  type MetricDataResult,
  type MetricDatum,
  PutMetricDataCommand,
} from '@aws-sdk/client-cloudwatch';
import { DescribeClusterCommand, EKSClient, ListNodegroupsCommand } from '@aws-sdk/client-eks';
import {
  CreateTopicCommand,
  GetTopicAttributesCommand,
  ListTopicsCommand,
  PublishCommand,
  type PublishInput,
  SNSClient,
  SubscribeCommand,
} from '@aws-sdk/client-sns';
import {
  GetParameterCommand,
  type GetParameterCommandInput,
  ParameterNotFound,
  ParameterVersionNotFound,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { type CloudWatchServer, startCloudWatchServer } from '../support/cloudwatch-server.ts';
import { type EksServer, startEksServer } from '../support/eks-server.ts';
import { FaultPlan } from '../support/faults.ts';
import { EKS_READS_PER_SECOND, LIST_METRICS_PER_SECOND } from '../support/request-rate-quotas.ts';
import { type SnsServer, startSnsServer } from '../support/sns-server.ts';
import {
  PARAMETER_VERSIONS_KEPT,
  type SsmServer,
  STANDARD_PARAMETER_BYTES,
  startSsmServer,
} from '../support/ssm-server.ts';

const credentials = { accessKeyId: 'AKIDLOOPBACK', secretAccessKey: 'loopback-secret' };
const T0 = Date.UTC(2024, 0, 1, 12, 0);
const NAMESPACE = 'Sentinel/Test';

const at = (minute: number) => new Date(T0 + minute * 60_000);

function query(
  id: string,
  stat: string,
  options: { namespace?: string; metric?: string; period?: number } = {},
): MetricDataQuery {
  return {
    Id: id,
    MetricStat: {
      Metric: { Namespace: options.namespace ?? NAMESPACE, MetricName: options.metric ?? 'requests' },
      Period: options.period ?? 60,
      Stat: stat,
    },
  };
}

function datum(minute: number, fields: Partial<MetricDatum> = {}): MetricDatum {
  return { MetricName: 'requests', Timestamp: at(minute), ...fields };
}

/** The datapoints of each result, as [timestamp ms, value] pairs, keyed by query id. */
function pointsById(results: MetricDataResult[] | undefined) {
  return Object.fromEntries(
    (results ?? []).map((result) => [
      result.Id,
      (result.Timestamps ?? []).map((timestamp, index) => [timestamp.getTime(), result.Values?.[index]]),
    ]),
  );
}

describe('loopback CloudWatch', () => {
  let server: CloudWatchServer;
  let cloudWatch: CloudWatchClient;
  let retryingCloudWatch: CloudWatchClient;

  const getMetricData = (input: Partial<GetMetricDataInput>) =>
    cloudWatch.send(
      new GetMetricDataCommand({
        MetricDataQueries: [query('sum', 'Sum')],
        StartTime: at(0),
        EndTime: at(60),
        ScanBy: 'TimestampAscending',
        ...input,
      }),
    );
  const putMetricData = (data: MetricDatum[]) =>
    cloudWatch.send(new PutMetricDataCommand({ Namespace: NAMESPACE, MetricData: data }));

  beforeAll(async () => {
    server = await startCloudWatchServer();
    const config = { endpoint: server.endpoint, region: 'us-east-1', credentials };
    cloudWatch = new CloudWatchClient({ ...config, maxAttempts: 1 });
    retryingCloudWatch = new CloudWatchClient({ ...config, maxAttempts: 3 });
  });

  afterAll(async () => {
    cloudWatch.destroy();
    retryingCloudWatch.destroy();
    await server.close();
  });

  beforeEach(() => server.reset());

  describe('metrics', () => {
    it('round-trips PutMetricData to GetMetricData for Sum and Maximum with gaps left absent', async () => {
      await putMetricData([
        datum(0, { Value: 1 }),
        datum(0, { Value: 4 }),
        datum(1, { Value: 2 }),
        datum(3, { Value: 5 }),
      ]);

      const { MetricDataResults } = await getMetricData({
        MetricDataQueries: [query('sum', 'Sum'), query('max', 'Maximum')],
      });

      expect(pointsById(MetricDataResults)).toEqual({
        sum: [
          [at(0).getTime(), 5],
          [at(1).getTime(), 2],
          [at(3).getTime(), 5],
        ],
        max: [
          [at(0).getTime(), 4],
          [at(1).getTime(), 2],
          [at(3).getTime(), 5],
        ],
      });
      expect(MetricDataResults?.map((result) => result.StatusCode)).toEqual(['Complete', 'Complete']);
    });

    it('aggregates 1-minute buckets into 5-minute periods for every statistic', async () => {
      await putMetricData([
        datum(0, { Value: 10 }),
        datum(2, { Values: [1, 3], Counts: [2, 1] }),
        datum(4, { StatisticValues: { SampleCount: 4, Sum: 20, Minimum: 2, Maximum: 8 } }),
        datum(6, { Value: 7 }),
      ]);
      const stats = ['Sum', 'Average', 'Minimum', 'Maximum', 'SampleCount'];

      const { MetricDataResults } = await getMetricData({
        MetricDataQueries: stats.map((stat) => query(stat.toLowerCase(), stat, { period: 300 })),
      });

      const first = at(0).getTime();
      const second = at(5).getTime();
      expect(pointsById(MetricDataResults)).toEqual({
        sum: [
          [first, 35],
          [second, 7],
        ],
        average: [
          [first, 35 / 8],
          [second, 7],
        ],
        minimum: [
          [first, 1],
          [second, 7],
        ],
        maximum: [
          [first, 10],
          [second, 7],
        ],
        samplecount: [
          [first, 8],
          [second, 1],
        ],
      });
    });

    it('returns the newest datapoint first unless ScanBy is TimestampAscending', async () => {
      await putMetricData([datum(0, { Value: 1 }), datum(1, { Value: 2 }), datum(2, { Value: 3 })]);

      const { MetricDataResults } = await getMetricData({ ScanBy: undefined });

      expect(MetricDataResults?.[0]?.Values).toEqual([3, 2, 1]);
    });

    it('treats EndTime as exclusive', async () => {
      await putMetricData([datum(0, { Value: 1 }), datum(1, { Value: 2 }), datum(2, { Value: 3 })]);

      const { MetricDataResults } = await getMetricData({ EndTime: at(2) });

      expect(MetricDataResults?.[0]?.Values).toEqual([1, 2]);
    });

    it('matches dimensions whatever their order', async () => {
      await putMetricData([
        datum(0, {
          Value: 1,
          Dimensions: [
            { Name: 'ClusterName', Value: 'prod' },
            { Name: 'Component', Value: 'apiserver' },
          ],
        }),
      ]);
      const metric = {
        Namespace: NAMESPACE,
        MetricName: 'requests',
        Dimensions: [
          { Name: 'Component', Value: 'apiserver' },
          { Name: 'ClusterName', Value: 'prod' },
        ],
      };

      const { MetricDataResults } = await getMetricData({
        MetricDataQueries: [{ Id: 'swapped', MetricStat: { Metric: metric, Period: 60, Stat: 'Sum' } }],
      });

      expect(MetricDataResults?.[0]?.Values).toEqual([1]);
    });

    it('paginates with NextToken when MaxDatapoints is small, and the pages add up to the whole', async () => {
      const metrics = ['alpha', 'beta', 'gamma'];
      await putMetricData(
        metrics.flatMap((metric, offset) =>
          Array.from({ length: 10 }, (_, minute) =>
            datum(minute, { MetricName: metric, Value: offset * 100 + minute }),
          ),
        ),
      );
      const queries = metrics.map((metric) => query(metric, 'Sum', { metric }));
      const whole = await getMetricData({ MetricDataQueries: queries });

      const pages: GetMetricDataCommandOutput[] = [];
      let nextToken: string | undefined;
      do {
        const page = await getMetricData({ MetricDataQueries: queries, MaxDatapoints: 4, NextToken: nextToken });
        pages.push(page);
        nextToken = page.NextToken;
      } while (nextToken);

      expect(pages).toHaveLength(8);
      for (const page of pages) {
        expect(
          page.MetricDataResults?.reduce((sum, result) => sum + (result.Values?.length ?? 0), 0),
        ).toBeLessThanOrEqual(4);
      }
      expect(pages[0]?.MetricDataResults?.map((result) => result.StatusCode)).toEqual([
        'PartialData',
        'PartialData',
        'PartialData',
      ]);
      const union = Object.fromEntries(
        metrics.map((metric) => [metric, pages.flatMap((page) => pointsById(page.MetricDataResults)[metric] ?? [])]),
      );
      expect(union).toEqual(pointsById(whole.MetricDataResults));
    });

    it('rejects a NextToken reused with a different request', async () => {
      await putMetricData([datum(0, { Value: 1 }), datum(1, { Value: 2 })]);
      const { NextToken } = await getMetricData({ MaxDatapoints: 1 });

      await expect(getMetricData({ MaxDatapoints: 1, NextToken, EndTime: at(30) })).rejects.toMatchObject({
        name: 'InvalidNextToken',
      });
    });

    it('rejects more than 500 queries with a ValidationError and records the request', async () => {
      const queries = Array.from({ length: 501 }, (_, index) => query(`q${index}`, 'Sum'));

      await expect(getMetricData({ MetricDataQueries: queries })).rejects.toMatchObject({
        name: 'ValidationException',
        Code: 'ValidationError',
        $fault: 'client',
      });
      expect(server.getMetricDataRequests[0]?.MetricDataQueries).toHaveLength(501);
    });

    it.each([
      ['duplicate ids', [query('same', 'Sum'), query('same', 'Maximum')]],
      ['an id starting with an uppercase letter', [query('Sum', 'Sum')]],
      ['an id starting with a digit', [query('1sum', 'Sum')]],
    ])('rejects %s with a ValidationError', async (_, queries) => {
      await expect(getMetricData({ MetricDataQueries: queries })).rejects.toMatchObject({ Code: 'ValidationError' });
    });

    it('rejects expression queries with a ValidationError naming the limitation', async () => {
      await expect(
        getMetricData({ MetricDataQueries: [{ Id: 'total', Expression: 'SUM(METRICS())' }] }),
      ).rejects.toMatchObject({ Code: 'ValidationError', message: expect.stringMatching(/not supported.*MetricStat/) });
    });

    it('reads another account only when AccountId is set on the query', async () => {
      server.put({ Namespace: NAMESPACE, MetricData: [datum(0, { Value: 1 })] });
      server.put({ Namespace: NAMESPACE, MetricData: [datum(0, { Value: 2 })] }, '111122223333');

      const { MetricDataResults } = await getMetricData({
        MetricDataQueries: [query('own', 'Sum'), { ...query('other', 'Sum'), AccountId: '111122223333' }],
      });

      expect(MetricDataResults?.map((result) => result.Values)).toEqual([[1], [2]]);
    });

    it('records each GetMetricData request as the caller passed it to the SDK', async () => {
      const input: GetMetricDataInput = {
        MetricDataQueries: [{ ...query('other', 'Sum'), AccountId: '111122223333' }],
        StartTime: at(0),
        EndTime: at(5),
        ScanBy: 'TimestampAscending',
        MaxDatapoints: 50,
      };

      await getMetricData(input);

      expect(server.getMetricDataRequests).toEqual([input]);
    });

    it.each([NaN, Infinity])('rejects a %s value with InvalidParameterValue', async (value) => {
      await expect(putMetricData([datum(0, { Value: value })])).rejects.toMatchObject({
        name: 'InvalidParameterValueException',
        Code: 'InvalidParameterValue',
      });
    });

    it('rejects more than 1,000 datums in one PutMetricData call', async () => {
      const data = Array.from({ length: 1001 }, () => datum(0, { Value: 1 }));

      await expect(putMetricData(data)).rejects.toMatchObject({ Code: 'ValidationError' });
    });

    it('stores a full batch of 1,000 datums, which the SDK sends gzip-compressed', async () => {
      await putMetricData(Array.from({ length: 1000 }, (_, index) => datum(index % 10, { Value: 1 })));

      const { MetricDataResults } = await getMetricData({ MetricDataQueries: [query('n', 'SampleCount')] });

      expect(MetricDataResults?.[0]?.Values).toEqual(Array(10).fill(100));
    });

    it('lets put() seed an AWS/ namespace that PutMetricData refuses', async () => {
      const data = { Namespace: 'AWS/EKS', MetricData: [datum(0, { Value: 3 })] };
      await expect(cloudWatch.send(new PutMetricDataCommand(data))).rejects.toMatchObject({
        Code: 'InvalidParameterValue',
      });

      server.put(data);

      const { MetricDataResults } = await getMetricData({
        MetricDataQueries: [query('eks', 'Sum', { namespace: 'AWS/EKS' })],
      });
      expect(MetricDataResults?.[0]?.Values).toEqual([3]);
    });

    it('hides datapoints at or after the visibility cutoff', async () => {
      await putMetricData([datum(0, { Value: 1 }), datum(1, { Value: 2 }), datum(2, { Value: 3 })]);

      server.setVisibleUntil(at(1));
      const { MetricDataResults } = await getMetricData({});

      expect(MetricDataResults?.[0]).toMatchObject({ Values: [1], StatusCode: 'Complete' });
    });

    it('marks results PartialData and keeps the oldest datapoints when partial data is simulated', async () => {
      await putMetricData([datum(0, { Value: 1 }), datum(1, { Value: 2 }), datum(2, { Value: 3 })]);

      server.setPartialData(2);
      const { MetricDataResults, NextToken } = await getMetricData({ ScanBy: 'TimestampDescending' });

      expect(MetricDataResults?.[0]).toMatchObject({
        Values: [2, 1],
        StatusCode: 'PartialData',
        Messages: [{ Code: 'PartialData' }],
      });
      expect(NextToken).toBeUndefined();
    });
  });

  describe('faults', () => {
    it('lets the SDK retry a call throttled on its first attempts until it succeeds', async () => {
      server.faults.inject({ kind: 'throttle', operation: 'GetMetricData', beforeAttempt: 3 });

      const { $metadata } = await retryingCloudWatch.send(
        new GetMetricDataCommand({ MetricDataQueries: [query('sum', 'Sum')], StartTime: at(0), EndTime: at(5) }),
      );

      expect($metadata.attempts).toBe(3);
      expect(server.faults.fired.throttle).toBe(2);
      expect(server.calls.GetMetricData).toBe(3);
    });

    it('surfaces a throttle as a Throttling error when retries are off', async () => {
      server.faults.inject({ kind: 'throttle' });

      await expect(getMetricData({})).rejects.toMatchObject({
        name: 'Throttling',
        $metadata: { httpStatusCode: 400, attempts: 1 },
      });
    });

    it('lets the SDK retry an internal error as a transient failure', async () => {
      server.faults.inject({ kind: 'server-error', times: 1 });

      const { $metadata } = await retryingCloudWatch.send(
        new PutMetricDataCommand({ Namespace: NAMESPACE, MetricData: [datum(0, { Value: 1 })] }),
      );

      expect($metadata.attempts).toBe(2);
      expect(server.faults.fired['server-error']).toBe(1);
    });

    it('answers unavailable with a 503 ServiceUnavailable', async () => {
      server.faults.inject({ kind: 'unavailable' });

      await expect(getMetricData({})).rejects.toMatchObject({
        name: 'ServiceUnavailable',
        $fault: 'server',
        $metadata: { httpStatusCode: 503 },
      });
    });

    it('surfaces a dropped connection as a network error to a client with retries disabled', async () => {
      server.faults.inject({ kind: 'drop', times: 1 });

      // Jest runs tests in a separate realm, where the SDK re-wraps node:http's error and keeps only its message.
      await expect(getMetricData({})).rejects.toThrow(/socket hang up/);
      expect(server.faults.fired.drop).toBe(1);
    });

    it('delays a slow answer by at least the configured time, then answers normally', async () => {
      server.faults.inject({ kind: 'slow', delayMs: 300 });

      const started = performance.now();
      const { MetricDataResults } = await getMetricData({});

      expect(performance.now() - started).toBeGreaterThanOrEqual(300);
      expect(MetricDataResults?.[0]?.StatusCode).toBe('Complete');
    });

    it('adds latencyMs to every request', async () => {
      server.faults.latencyMs = 100;

      const started = performance.now();
      await getMetricData({});
      await putMetricData([datum(0, { Value: 1 })]);

      expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    });

    it('fires a fault with times only on that many requests of its operation', async () => {
      server.faults.inject({ kind: 'server-error', operation: 'PutMetricData', times: 1 });

      await expect(getMetricData({})).resolves.toBeDefined();
      await expect(putMetricData([datum(0, { Value: 1 })])).rejects.toMatchObject({ name: 'InternalServiceFault' });
      await expect(putMetricData([datum(0, { Value: 1 })])).resolves.toBeDefined();
      expect(server.calls).toEqual({ GetMetricData: 1, PutMetricData: 2 });
    });

    it('refuses a beforeAttempt that could never fire', () => {
      expect(() => new FaultPlan().inject({ kind: 'throttle', beforeAttempt: 1 })).toThrow(RangeError);
    });
  });
});

describe('loopback CloudWatch quotas', () => {
  /** 500 queries over three hours of one-minute periods: 90,000 datapoints a call could return. */
  const queries = Array.from({ length: 500 }, (_, index) => query(`q${index}`, 'Sum'));
  const HOURS_3 = 180;
  let server: CloudWatchServer;
  let now = T0;
  const client = (maxAttempts: number) =>
    new CloudWatchClient({ endpoint: server.endpoint, region: 'us-east-1', credentials, maxAttempts });
  const read = (cloudWatch: CloudWatchClient, fromMinute: number) =>
    cloudWatch.send(
      new GetMetricDataCommand({
        MetricDataQueries: queries,
        StartTime: at(fromMinute),
        EndTime: at(fromMinute + HOURS_3),
      }),
    );

  beforeAll(async () => {
    server = await startCloudWatchServer({ now: () => now });
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    server.reset();
    // Every test starts with an empty one-second window.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  });

  it('refuses the datapoints past 180,000 a second of recent reads with a Throttling error, HTTP 400', async () => {
    now = T0 + HOURS_3 * 60_000;
    const cloudWatch = client(1);

    const answers = await Promise.allSettled([read(cloudWatch, 0), read(cloudWatch, 0), read(cloudWatch, 0)]);

    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(2);
    expect(answers.find((a) => a.status === 'rejected')?.reason).toMatchObject({
      name: 'Throttling',
      message: 'Rate exceeded',
      $metadata: { httpStatusCode: 400 },
    });
    expect(server.quota.throttled['datapoints per second']).toBe(1);
    cloudWatch.destroy();
  });

  it('counts a StartTime older than three hours against the 396,000 tier, apart from recent reads', async () => {
    now = T0 + 2 * HOURS_3 * 60_000;
    const cloudWatch = client(1);

    const older = await Promise.allSettled(Array.from({ length: 5 }, () => read(cloudWatch, 0)));
    const recent = await Promise.allSettled([read(cloudWatch, HOURS_3), read(cloudWatch, HOURS_3)]);

    expect(older.map((a) => a.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    expect(recent.map((a) => a.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(server.quota.datapoints).toBe(6 * 90_000);
    cloudWatch.destroy();
  });

  it('refuses calls past the TPS quotas, which a test may set as an account with an increase has them', async () => {
    const limited = await startCloudWatchServer({ quotas: { transactionsPerSecond: 2, describeAlarmsPerSecond: 1 } });
    const cloudWatch = new CloudWatchClient({
      endpoint: limited.endpoint,
      region: 'us-east-1',
      credentials,
      maxAttempts: 1,
    });
    const small = () =>
      cloudWatch.send(
        new GetMetricDataCommand({ MetricDataQueries: [query('q', 'Sum')], StartTime: at(0), EndTime: at(5) }),
      );

    const alarms = () => cloudWatch.send(new DescribeAlarmsCommand({}));

    const answers = await Promise.allSettled([small(), small(), small()]);
    const alarmAnswers = await Promise.allSettled([alarms(), alarms()]);

    expect(answers.map((a) => a.status).sort()).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect(limited.quota.throttled['transactions per second']).toBe(1);
    expect(alarmAnswers.map((a) => a.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(limited.describeAlarmsQuota.throttled).toBe(1);
    cloudWatch.destroy();
    await limited.close();
  });

  it('refuses DescribeAlarms past 9 a second in each Region with a Throttling error, HTTP 400', async () => {
    const inRegion = (region: string) =>
      new CloudWatchClient({ endpoint: server.endpoint, region, credentials, maxAttempts: 1 });
    const [east, west] = [inRegion('us-east-1'), inRegion('eu-west-1')];
    const describeAlarms = (cloudWatch: CloudWatchClient) => cloudWatch.send(new DescribeAlarmsCommand({}));

    const eastAnswers = await Promise.allSettled(Array.from({ length: 10 }, () => describeAlarms(east)));
    const westAnswers = await Promise.allSettled(Array.from({ length: 9 }, () => describeAlarms(west)));

    expect(eastAnswers.filter((a) => a.status === 'fulfilled')).toHaveLength(9);
    expect(eastAnswers.find((a) => a.status === 'rejected')?.reason).toMatchObject({
      name: 'Throttling',
      message: 'Rate exceeded',
      $metadata: { httpStatusCode: 400 },
    });
    expect(westAnswers.every((a) => a.status === 'fulfilled')).toBe(true);
    expect(server.describeAlarmsQuota.throttled).toBe(1);
    east.destroy();
    west.destroy();
  });

  it('refuses ListMetrics past 25 a second in each Region with a Throttling error, HTTP 400', async () => {
    const inRegion = (region: string) =>
      new CloudWatchClient({ endpoint: server.endpoint, region, credentials, maxAttempts: 1 });
    const [east, west] = [inRegion('us-east-1'), inRegion('eu-west-1')];
    const listMetrics = (cloudWatch: CloudWatchClient) =>
      cloudWatch.send(new ListMetricsCommand({ Namespace: NAMESPACE }));

    const eastAnswers = await Promise.allSettled(
      Array.from({ length: LIST_METRICS_PER_SECOND + 1 }, () => listMetrics(east)),
    );
    const westAnswers = await Promise.allSettled(
      Array.from({ length: LIST_METRICS_PER_SECOND }, () => listMetrics(west)),
    );

    expect(LIST_METRICS_PER_SECOND).toBe(25);
    expect(eastAnswers.filter((a) => a.status === 'fulfilled')).toHaveLength(LIST_METRICS_PER_SECOND);
    expect(eastAnswers.find((a) => a.status === 'rejected')?.reason).toMatchObject({
      name: 'Throttling',
      message: 'Rate exceeded',
      $metadata: { httpStatusCode: 400 },
    });
    expect(westAnswers.every((a) => a.status === 'fulfilled')).toBe(true);
    expect(server.listMetricsQuota.throttled).toBe(1);
    east.destroy();
    west.destroy();
  });

  it('lets the SDK standard retry back off from a quota throttle until the window has room', async () => {
    now = T0 + HOURS_3 * 60_000;
    const cloudWatch = client(5);

    const answers = await Promise.all([read(cloudWatch, 0), read(cloudWatch, 0), read(cloudWatch, 0)]);

    expect(answers.map((a) => a.MetricDataResults?.length)).toEqual([500, 500, 500]);
    expect(Math.max(...answers.map((a) => a.$metadata.attempts ?? 0))).toBeGreaterThan(1);
    cloudWatch.destroy();
  });
});

describe('loopback EKS rate', () => {
  let server: EksServer;
  const inRegion = (region: string, maxAttempts = 1) =>
    new EKSClient({ endpoint: server.endpoint, region, credentials, maxAttempts });

  beforeAll(async () => {
    server = await startEksServer();
  });

  afterAll(async () => {
    await server.close();
  });

  beforeEach(() => {
    server.reset();
    server.clusters.set('prod', { nodegroups: ['general'] });
  });

  it(`refuses reads past ${EKS_READS_PER_SECOND} a second in each Region, every operation together, with a ThrottlingException, HTTP 429`, async () => {
    const [east, west] = [inRegion('us-east-1'), inRegion('eu-west-1')];
    const read = (eks: EKSClient, index: number) =>
      index % 2 === 0
        ? eks.send(new DescribeClusterCommand({ name: 'prod' }))
        : eks.send(new ListNodegroupsCommand({ clusterName: 'prod' }));

    const eastAnswers = await Promise.allSettled(
      Array.from({ length: EKS_READS_PER_SECOND + 1 }, (_, i) => read(east, i)),
    );
    const westAnswers = await Promise.allSettled(Array.from({ length: EKS_READS_PER_SECOND }, (_, i) => read(west, i)));

    expect(eastAnswers.filter((a) => a.status === 'fulfilled')).toHaveLength(EKS_READS_PER_SECOND);
    expect(eastAnswers.find((a) => a.status === 'rejected')?.reason).toMatchObject({
      name: 'ThrottlingException',
      message: 'Too Many Requests',
      $fault: 'client',
      $metadata: { httpStatusCode: 429 },
    });
    expect(westAnswers.every((a) => a.status === 'fulfilled')).toBe(true);
    expect(server.quota.throttled).toBe(1);
    east.destroy();
    west.destroy();
  });

  it('lets the SDK standard retry back off from the throttle until the second has room', async () => {
    const eks = inRegion('us-east-1', 6);

    const answers = await Promise.all(
      Array.from({ length: EKS_READS_PER_SECOND + 5 }, () => eks.send(new DescribeClusterCommand({ name: 'prod' }))),
    );

    expect(answers.every((a) => a.cluster?.name === 'prod')).toBe(true);
    expect(server.quota.throttled).toBeGreaterThan(0);
    expect(Math.max(...answers.map((a) => a.$metadata.attempts ?? 0))).toBeGreaterThan(1);
    eks.destroy();
  });
});

describe('loopback SNS', () => {
  let server: SnsServer;
  let sns: SNSClient;
  let topicArn: string;

  const publish = (input: Partial<PublishInput>) =>
    sns.send(new PublishCommand({ TopicArn: topicArn, Message: 'cluster prod is down', ...input }));

  beforeAll(async () => {
    server = await startSnsServer();
    sns = new SNSClient({ endpoint: server.endpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
  });

  afterAll(async () => {
    sns.destroy();
    await server.close();
  });

  beforeEach(() => {
    server.reset();
    topicArn = server.createTopic('incidents');
  });

  it('creates a topic with a deterministic ARN that ListTopics and GetTopicAttributes report', async () => {
    const { TopicArn } = await sns.send(
      new CreateTopicCommand({ Name: 'pages', Attributes: { DisplayName: 'Pages' } }),
    );

    const { Topics } = await sns.send(new ListTopicsCommand({}));
    const { Attributes } = await sns.send(new GetTopicAttributesCommand({ TopicArn }));

    expect(TopicArn).toBe('arn:aws:sns:us-east-1:000000000000:pages');
    expect(Topics).toEqual([{ TopicArn: topicArn }, { TopicArn }]);
    expect(Attributes).toMatchObject({ TopicArn, DisplayName: 'Pages', Owner: '000000000000' });
  });

  it('records a subscription and returns its ARN', async () => {
    const { SubscriptionArn } = await sns.send(
      new SubscribeCommand({ TopicArn: topicArn, Protocol: 'email', Endpoint: 'oncall@example.com' }),
    );

    expect(server.subscriptions).toEqual([
      { subscriptionArn: SubscriptionArn, topicArn, protocol: 'email', endpoint: 'oncall@example.com' },
    ]);
    expect(SubscriptionArn?.startsWith(`${topicArn}:`)).toBe(true);
  });

  it('records a Publish with MessageStructure json and MessageAttributes exactly', async () => {
    const message = JSON.stringify({ default: 'prod: apiserver down', email: 'Prod apiserver is down.' });

    const { MessageId } = await publish({
      Subject: 'prod: apiserver down',
      Message: message,
      MessageStructure: 'json',
      MessageAttributes: {
        severity: { DataType: 'String', StringValue: 'critical' },
        clusters: { DataType: 'Number', StringValue: '3' },
        causes: { DataType: 'String.Array', StringValue: '["webhook"]' },
      },
    });

    expect(server.published).toEqual([
      {
        topicArn,
        subject: 'prod: apiserver down',
        message,
        messageStructure: 'json',
        messageAttributes: {
          severity: { DataType: 'String', StringValue: 'critical' },
          clusters: { DataType: 'Number', StringValue: '3' },
          causes: { DataType: 'String.Array', StringValue: '["webhook"]' },
        },
        messageId: MessageId,
        at: expect.any(Date),
      },
    ]);
  });

  it.each([
    ['of 101 characters', 'x'.repeat(101)],
    ['with a line break', 'cluster\ndown'],
    ['starting with a space', ' cluster down'],
    ['with non-ASCII text', 'clüster down'],
    ['that is empty', ''],
  ])('rejects a subject %s with InvalidParameter', async (_, subject) => {
    await expect(publish({ Subject: subject })).rejects.toMatchObject({
      name: 'InvalidParameterException',
      Code: 'InvalidParameter',
      message: 'Invalid parameter: Subject',
    });
    expect(server.published).toEqual([]);
  });

  it('accepts a subject of exactly 100 characters', async () => {
    await publish({ Subject: 'x'.repeat(100) });

    expect(server.published[0]?.subject).toHaveLength(100);
  });

  it('answers NotFound for a topic that was never created', async () => {
    await expect(publish({ TopicArn: server.topicArn('unknown') })).rejects.toMatchObject({
      name: 'NotFoundException',
      Code: 'NotFound',
    });
  });

  it.each([
    ['without a default entry', JSON.stringify({ email: 'down' }), /No default entry/],
    ['that is not a JSON object', '["down"]', /failed to parse/],
    ['with a non-string value', JSON.stringify({ default: 'down', sms: 1 }), /failed to parse/],
  ])('rejects a json-structured message %s', async (_, message, reason) => {
    await expect(publish({ Message: message, MessageStructure: 'json' })).rejects.toMatchObject({
      Code: 'InvalidParameter',
      message: expect.stringMatching(reason),
    });
  });

  it('rejects an empty message', async () => {
    await expect(publish({ Message: '' })).rejects.toMatchObject({ Code: 'InvalidParameter' });
  });

  it('rejects a message over 256 KiB once its attributes are counted', async () => {
    const attributes = { tag: { DataType: 'String', StringValue: 'x' } };
    await publish({ Message: 'x'.repeat(262_144 - 'tagStringx'.length), MessageAttributes: attributes });

    await expect(
      publish({ Message: 'x'.repeat(262_144 - 'tagStringx'.length + 1), MessageAttributes: attributes }),
    ).rejects.toMatchObject({ Code: 'InvalidParameter', message: 'Invalid parameter: Message too long' });
  });

  it('counts the subject against the 256 KiB too', async () => {
    const subject = 'Webhook down';
    await publish({ Subject: subject, Message: 'x'.repeat(262_144 - subject.length) });

    await expect(
      publish({ Subject: subject, Message: 'x'.repeat(262_144 - subject.length + 1) }),
    ).rejects.toMatchObject({ Code: 'InvalidParameter', message: 'Invalid parameter: Message too long' });
  });

  it('rejects more than 10 message attributes', async () => {
    const attributes = Object.fromEntries(
      Array.from({ length: 11 }, (_, index) => [`a${index}`, { DataType: 'String', StringValue: 'v' }]),
    );

    await expect(publish({ MessageAttributes: attributes })).rejects.toMatchObject({ Code: 'InvalidParameter' });
  });

  it.each([
    ['an unknown data type', { DataType: 'Date', StringValue: 'today' }],
    ['no value', { DataType: 'String' }],
    ['a non-numeric Number', { DataType: 'Number', StringValue: 'many' }],
  ])('rejects a message attribute with %s as ParameterValueInvalid', async (_, attribute) => {
    await expect(publish({ MessageAttributes: { bad: attribute } })).rejects.toMatchObject({
      name: 'InvalidParameterValueException',
      Code: 'ParameterValueInvalid',
    });
  });

  it('surfaces a throttled publish as a ThrottledException when retries are off', async () => {
    server.faults.inject({ kind: 'throttle', operation: 'Publish' });

    await expect(publish({})).rejects.toMatchObject({
      name: 'ThrottledException',
      Code: 'Throttled',
      $metadata: { httpStatusCode: 429 },
    });
    expect(server.faults.fired.throttle).toBe(1);
    expect(server.published).toEqual([]);
  });

  it('answers an injected server error with a 500 InternalError', async () => {
    server.faults.inject({ kind: 'server-error', times: 1 });

    await expect(publish({})).rejects.toMatchObject({
      name: 'InternalErrorException',
      $fault: 'server',
      $metadata: { httpStatusCode: 500 },
    });
  });
});

describe('loopback SSM', () => {
  let server: SsmServer;
  let ssm: SSMClient;
  const name = '/sentinel/pagerduty-routing-key';
  const getParameter = (input: Partial<GetParameterCommandInput>) =>
    ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true, ...input }));

  beforeAll(async () => {
    server = await startSsmServer();
    ssm = new SSMClient({ endpoint: server.endpoint, region: 'us-east-1', credentials, maxAttempts: 1 });
  });

  afterAll(async () => {
    ssm.destroy();
    await server.close();
  });

  beforeEach(() => {
    server.reset();
    server.deleteParameter(name);
  });

  it('answers GetParameter with the latest version, decrypted, and an earlier one by NAME:VERSION', async () => {
    server.putParameter(name, 'first');
    server.putParameter(name, 'second');

    const latest = await getParameter({});
    const first = await getParameter({ Name: `${name}:1` });

    expect(latest.Parameter).toMatchObject({ Name: name, Type: 'SecureString', Value: 'second', Version: 2 });
    expect(latest.Parameter?.Selector).toBeUndefined();
    expect(first.Parameter).toMatchObject({ Value: 'first', Version: 1, Selector: ':1' });
    expect(latest.Parameter?.ARN).toBe('arn:aws:ssm:us-east-1:000000000000:parameter/sentinel/pagerduty-routing-key');
  });

  it('answers a SecureString without WithDecryption with a ciphertext, and a String as it is', async () => {
    server.putParameter(name, 'the-key');
    server.putParameter('plain', 'not-a-secret', 'String');

    const secure = await getParameter({ WithDecryption: false });
    const plain = await getParameter({ Name: 'plain', WithDecryption: false });

    expect(secure.Parameter?.Value).toMatch(/^AQICAH/);
    expect(secure.Parameter?.Value).not.toContain('the-key');
    expect(plain.Parameter?.Value).toBe('not-a-secret');
  });

  it('takes a parameter at the root with or without its leading "/"', async () => {
    server.putParameter('/root-key', 'value');

    await expect(getParameter({ Name: 'root-key' })).resolves.toMatchObject({ Parameter: { Value: 'value' } });
  });

  it('names a missing parameter and a missing version as the SDK expects', async () => {
    server.putParameter(name, 'only');

    await expect(getParameter({ Name: '/sentinel/none' })).rejects.toBeInstanceOf(ParameterNotFound);
    await expect(getParameter({ Name: `${name}:2` })).rejects.toBeInstanceOf(ParameterVersionNotFound);
  });

  it(`keeps the last ${PARAMETER_VERSIONS_KEPT} versions, as Parameter Store does`, async () => {
    for (let version = 1; version <= PARAMETER_VERSIONS_KEPT + 1; version++) server.putParameter(name, `v${version}`);

    await expect(getParameter({ Name: `${name}:1` })).rejects.toBeInstanceOf(ParameterVersionNotFound);
    await expect(getParameter({ Name: `${name}:2` })).resolves.toMatchObject({ Parameter: { Value: 'v2' } });
  });

  it(`refuses a value over ${STANDARD_PARAMETER_BYTES} bytes, a standard parameter's most`, () => {
    server.putParameter(name, 'x'.repeat(STANDARD_PARAMETER_BYTES));

    expect(() => server.putParameter(name, 'x'.repeat(STANDARD_PARAMETER_BYTES + 1))).toThrow(RangeError);
  });

  it('answers an injected throttle with the ThrottlingException that the standard retry mode retries', async () => {
    server.putParameter(name, 'the-key');
    server.faults.inject({ kind: 'throttle', operation: 'GetParameter', times: 1 });

    await expect(getParameter({})).rejects.toMatchObject({
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(getParameter({})).resolves.toMatchObject({ Parameter: { Value: 'the-key' } });
  });
});
