import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { documentClient } from '../../aws/clients.ts';
import { DynamoDbNodeChurnReader } from '../../aws/dynamodb/node-churn-reader.ts';
import { DynamoDbTable } from '../../aws/dynamodb/table.ts';
import { DynamoDbTripwires } from '../../aws/dynamodb/tripwires.ts';
import { NodeChurnMetricSource } from '../../shared/churn/churn-metric-source.ts';
import type { ClusterConfig } from '../../shared/config/deployment-config.ts';
import { SeriesWindow } from '../../shared/engine/signal-window.ts';
import type { SignalName } from '../../shared/engine/signals.ts';
import type { MetricSource } from '../../shared/pipeline/ports.ts';
import { type AwsHarness, clearTable, startAwsHarness, TABLE, writeConfig } from '../../support/aws-harness.ts';
import { type CapturedOutput, captureOutput } from '../../support/captured-output.ts';
import { type Ec2Server, startEc2Server } from '../../support/ec2-server.ts';
import {
  elbCause,
  karpenterTags,
  lifecycleAction,
  NODE_EVENTS_ACCOUNT,
  rebalance,
  scaleInCause,
  spotWarning,
  stateChange,
  terminateSuccessful,
  unhealthyCause,
} from '../../support/node-events.ts';

/**
 * Node events, in the JSON AWS documents for each source, through the real node-churn handler into dynalite, and
 * read back the way the poller reads them. One cluster per kind of node.
 */
const OPS = NODE_EVENTS_ACCOUNT;
const T = Date.parse('2026-11-23T04:00:00Z');
const UNHEALTHY_CAUSE = unhealthyCause(T);
const ELB_CAUSE = elbCause(T);
const SCALE_IN_CAUSE = scaleInCause(T);
const minute = 60_000;

const clusters: ClusterConfig[] = ['mng-euw1', 'self-euw1', 'karpenter-euw1', 'auto-euw1', 'fargate-euw1'].map(
  (name) => ({
    name,
    source: {
      profile: 'eks',
      nodeGroups: name === 'self-euw1' ? ['self-euw1-workers'] : [],
      containerInsights: true,
      custom: {},
      ...(name === 'fargate-euw1' && { nodes: 'fargate' as const }),
    },
    overrides: {},
  }),
);

type Handler = (event: object, context: Context) => Promise<{ outcome: string; reason?: string } | undefined>;

describe('node churn from Auto Scaling and EC2 events', () => {
  let harness: AwsHarness;
  let ec2: Ec2Server;
  let handler: Handler;
  let output: CapturedOutput;
  let at = T;
  let invocations = 0;
  const deliver = (event: object, arrival = at) => {
    at = arrival;
    return handler(event, { awsRequestId: `r-${++invocations}` } as Context);
  };
  /** What the poller reads for a cluster: the churn signals per minute over [T, T + minutes). */
  const read = async (cluster: string, minutes = 20) => {
    const inner: MetricSource = {
      read: async (request) => ({
        windows: new Map(
          request.clusters.map((c) => [c, new SeriesWindow({ 'nodes.total': [] }, 60, request.samples - 1)]),
        ),
        metricsRequested: 0,
        unreadable: [],
      }),
    };
    const source = new NodeChurnMetricSource(
      inner,
      new DynamoDbNodeChurnReader(new DynamoDbTable({ client: documentClient(), table: TABLE, now: () => at })),
      clusters,
    );
    const reading = await source.read({
      clusters: [cluster],
      end: T + (minutes - 1) * minute,
      samples: minutes,
      stepSeconds: 60,
    });
    const window = reading.windows.get(cluster);
    const series = (signal: SignalName) =>
      window?.has(signal)
        ? Array.from({ length: minutes }, (_, i) => window.sample(signal, minutes - 1 - i))
        : undefined;
    return {
      replaced: series('nodes.replaced'),
      interrupted: series('nodes.interrupted'),
      scaledin: series('nodes.scaledin'),
      unreadable: reading.unreadable,
    };
  };
  const total = (values: readonly (number | null)[] | undefined) =>
    (values ?? []).reduce<number>((n, v) => n + (v ?? 0), 0);
  const onlyAt = (index: number, minutes = 20) => Array.from({ length: minutes }, (_, i) => (i === index ? 1 : 0));

  beforeAll(async () => {
    harness = await startAwsHarness();
    ec2 = await startEc2Server();
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_EC2: ec2.endpoint,
      SENTINEL_CONFIG_FILE: writeConfig({ clusters }),
      SENTINEL_TABLE: TABLE,
      SENTINEL_OPS_ACCOUNT: OPS,
      SENTINEL_DEPLOYMENT: 'test',
    });
    // The handler's clock is the events' arrival; its log lines are kept to check what it says it lost.
    Date.now = () => at;
    output = captureOutput();
    handler = (await import('../../functions/node-churn/handler.ts')).handler as unknown as Handler;
  });

  beforeEach(async () => {
    await clearTable(harness.dynamoEndpoint);
    ec2.instances.clear();
    ec2.reset();
  });

  afterAll(async () => {
    output.restore();
    await Promise.all([harness.close(), ec2.close()]);
  });

  it('counts a managed node group node that drains for five minutes once, in the minute it began, as unhealthy', async () => {
    const id = 'i-0aaaaaaaaaaaaaaa1';
    ec2.instances.set(id, { 'eks:cluster-name': 'mng-euw1', 'eks:nodegroup-name': 'general' });
    const group = 'eks-general-1ac6d5e1-4c5f-7e84-2b2d-0123456789ab';
    await deliver(lifecycleAction(group, id, T + 3 * minute), T + 3 * minute + 2_000);
    await deliver(stateChange(id, 'shutting-down', T + 8 * minute), T + 8 * minute + 1_000);
    await deliver(
      terminateSuccessful(group, id, T + 3 * minute, T + 8 * minute, UNHEALTHY_CAUSE),
      T + 8 * minute + 3_000,
    );
    await deliver(stateChange(id, 'terminated', T + 9 * minute), T + 9 * minute + 1_000);

    const churn = await read('mng-euw1');
    expect([churn.replaced, total(churn.interrupted), total(churn.scaledin)]).toEqual([onlyAt(3), 0, 0]);
  });

  it('counts a self-managed group’s unhealthy instance from the group the configuration lists, even once EC2 forgot it', async () => {
    const result = await deliver(
      terminateSuccessful('self-euw1-workers', 'i-0bbbbbbbbbbbbbbb1', T + 5 * minute, T + 6 * minute, ELB_CAUSE),
      T + 6 * minute,
    );

    expect([result, (await read('self-euw1')).replaced]).toEqual([
      {
        event: 'EC2 Instance Terminate Successful',
        instanceId: 'i-0bbbbbbbbbbbbbbb1',
        outcome: 'counted',
        cluster: 'self-euw1',
        reason: 'unhealthy',
      },
      onlyAt(5),
    ]);
  });

  it('counts a scale-in in nodes.scaledin beside nodes.replaced', async () => {
    await deliver(
      terminateSuccessful('self-euw1-workers', 'i-0bbbbbbbbbbbbbbb2', T + 2 * minute, T + 3 * minute, SCALE_IN_CAUSE),
      T + 3 * minute,
    );

    const churn = await read('self-euw1');
    expect([churn.replaced, churn.scaledin]).toEqual([onlyAt(2), onlyAt(2)]);
  });

  it('reads the counted terminations eventually consistently, at half the read units of a consistent query', async () => {
    await deliver(
      terminateSuccessful('self-euw1-workers', 'i-0bbbbbbbbbbbbbbb3', T + 2 * minute, T + 3 * minute, ELB_CAUSE),
      T + 3 * minute,
    );
    const client = documentClient();
    const queries: QueryCommandInput[] = [];
    client.middlewareStack.add(
      (next) => async (args) => {
        queries.push(args.input as QueryCommandInput);
        return next(args);
      },
      { step: 'initialize', name: 'recordQueries' },
    );
    const reader = new DynamoDbNodeChurnReader(new DynamoDbTable({ client, table: TABLE, now: () => at }));

    const counted = await reader.terminations('self-euw1', T, T + 20 * minute);

    expect(counted.map((c) => c.instanceId)).toEqual(['i-0bbbbbbbbbbbbbbb3']);
    expect(queries.map((q) => q.ConsistentRead ?? false)).toEqual([false]);
  });

  it('places a Karpenter node by the tags it had when it started running, and counts its termination once', async () => {
    const id = 'i-0ccccccccccccccc1';
    ec2.instances.set(id, karpenterTags('karpenter-euw1'));
    await deliver(stateChange(id, 'running', T - 60 * minute), T - 60 * minute);
    // By the time it terminates EC2 no longer answers for it: the record made at `running` places it.
    ec2.instances.delete(id);
    await deliver(stateChange(id, 'shutting-down', T + 4 * minute), T + 4 * minute);
    await deliver(stateChange(id, 'terminated', T + 5 * minute), T + 5 * minute);

    const churn = await read('karpenter-euw1');
    expect([churn.replaced, total(churn.interrupted), ec2.calls.DescribeInstances]).toEqual([onlyAt(4), 0, 1]);
  });

  it('counts a spot interruption as an interruption, not as a repair', async () => {
    const id = 'i-0ccccccccccccccc2';
    ec2.instances.set(id, karpenterTags('karpenter-euw1'));
    await deliver(stateChange(id, 'running', T - 30 * minute), T - 30 * minute);
    await deliver(rebalance(id, T + 1 * minute), T + 1 * minute);
    await deliver(spotWarning(id, T + 6 * minute), T + 6 * minute);
    await deliver(stateChange(id, 'shutting-down', T + 8 * minute), T + 8 * minute);

    const churn = await read('karpenter-euw1');
    expect([churn.replaced, churn.interrupted]).toEqual([onlyAt(8), onlyAt(8)]);
  });

  it('places an EKS Auto Mode node whose running event never came by looking it up while EC2 still describes it', async () => {
    const id = 'i-0ddddddddddddddd1';
    ec2.instances.set(id, { 'eks:eks-cluster-name': 'auto-euw1', 'eks:kubernetes-node-pool-name': 'general-purpose' });
    await deliver(stateChange(id, 'shutting-down', T + 7 * minute), T + 7 * minute);

    expect((await read('auto-euw1')).replaced).toEqual(onlyAt(7));
  });

  it('arms minute polling after three possible repairs within 30 minutes, not after two, one delivered twice, nor spot interruptions', async () => {
    const tripwires = new DynamoDbTripwires(
      new DynamoDbTable({ client: documentClient(), table: TABLE, now: Date.now }),
    );
    const byNodeChurn = async (at: number) => [...(await tripwires.armed(at)).byNodeChurn];
    const spot = ['i-0ccccccccccccccc3', 'i-0ccccccccccccccc4', 'i-0ccccccccccccccc5'];
    for (const id of spot) {
      ec2.instances.set(id, karpenterTags('karpenter-euw1'));
      await deliver(spotWarning(id, T + 1 * minute), T + 1 * minute);
      await deliver(stateChange(id, 'shutting-down', T + 2 * minute), T + 2 * minute);
    }
    for (const id of ['i-0ddddddddddddddd3', 'i-0ddddddddddddddd4', 'i-0ddddddddddddddd5']) {
      ec2.instances.set(id, { 'eks:eks-cluster-name': 'auto-euw1' });
    }
    const first = stateChange('i-0ddddddddddddddd3', 'shutting-down', T + 2 * minute);
    await deliver(first, T + 2 * minute);
    await deliver(first, T + 2 * minute);
    await deliver(stateChange('i-0ddddddddddddddd4', 'shutting-down', T + 5 * minute), T + 5 * minute);
    const afterTwo = await byNodeChurn(T + 6 * minute);
    await deliver(stateChange('i-0ddddddddddddddd5', 'shutting-down', T + 9 * minute), T + 9 * minute);

    expect([
      afterTwo,
      await byNodeChurn(T + 30 * minute),
      await byNodeChurn(T + 40 * minute),
      [...(await tripwires.armed(T + 10 * minute)).byAlarm],
    ]).toEqual([[], ['auto-euw1'], [], []]);
  });

  it('counts an event delivered twice once', async () => {
    const event = terminateSuccessful(
      'self-euw1-workers',
      'i-0bbbbbbbbbbbbbbb3',
      T + 1 * minute,
      T + 2 * minute,
      ELB_CAUSE,
    );
    await deliver(event, T + 2 * minute);
    await deliver(event, T + 2 * minute + 30_000);

    expect(total((await read('self-euw1')).replaced)).toBe(1);
  });

  it('fails the event when EC2 cannot be asked, so Lambda retries it, and counts it once the retry gets through', async () => {
    const id = 'i-0ddddddddddddddd2';
    ec2.instances.set(id, { 'eks:eks-cluster-name': 'auto-euw1' });
    ec2.faults.inject({ kind: 'throttle', operation: 'DescribeInstances' });
    const event = stateChange(id, 'shutting-down', T + 2 * minute);

    await expect(deliver(event, T + 2 * minute)).rejects.toThrow(/Request limit exceeded/);
    const before = total((await read('auto-euw1')).replaced);
    ec2.reset();
    await deliver(event, T + 3 * minute);
    expect([before, (await read('auto-euw1')).replaced]).toEqual([0, onlyAt(2)]);
  });

  it('logs a termination it cannot place, and leaves instances that are no nodes alone', async () => {
    ec2.instances.set('i-0eeeeeeeeeeeeeee1', { Name: 'bastion' });
    const gone = await deliver(stateChange('i-0eeeeeeeeeeeeeee0', 'shutting-down', T + 2 * minute), T + 2 * minute);
    const bastion = await deliver(stateChange('i-0eeeeeeeeeeeeeee1', 'shutting-down', T + 2 * minute), T + 2 * minute);

    expect([gone?.outcome, bastion?.outcome]).toEqual(['unplaced', 'not-a-node']);
    const warnings = output.json().filter((line) => String(line.message).includes('could not be placed in a cluster'));
    expect(warnings.map((line) => line.instanceId)).toEqual(['i-0eeeeeeeeeeeeeee0']);
  });

  it('refuses an event that does not follow the documented shape, naming the field', async () => {
    const event = { ...stateChange('i-0eeeeeeeeeeeeeee2', 'shutting-down', T), detail: { state: 'shutting-down' } };

    await expect(deliver(event, T)).rejects.toThrow(/instance-id/);
  });

  it('gives a Fargate-only cluster no churn signals: it has no nodes to repair', async () => {
    expect((await read('fargate-euw1')).replaced).toBeUndefined();
  });
});
