/**
 * What counting node churn in the table costs, measured on the real node-churn handler and the poller's reader
 * against dynalite behind the capacity meter: latency and request units per event, and per poll read. Run alone with
 * `npx tsx bench/node-churn-footprint.ts` (docs/deploy.md, "Where the count lives").
 */
import type { Context } from 'aws-lambda';
import { documentClient } from '../aws/clients.ts';
import { DynamoDbNodeChurnReader } from '../aws/dynamodb/node-churn-reader.ts';
import { DynamoDbTable } from '../aws/dynamodb/table.ts';
import type { ClusterConfig } from '../shared/config/deployment-config.ts';
import { startAwsHarness, TABLE, writeConfig } from '../support/aws-harness.ts';
import { captureOutput } from '../support/captured-output.ts';
import { startEc2Server } from '../support/ec2-server.ts';
import {
  karpenterTags,
  lifecycleAction,
  NODE_EVENTS_ACCOUNT,
  stateChange,
  terminateSuccessful,
  unhealthyCause,
} from '../support/node-events.ts';
import { startDynamoMeter } from './dynamodb-meter.ts';
import { median } from './statistics.ts';

const TERMINATIONS = 300;
const START = Date.parse('2026-11-23T00:00:00Z');

async function main(): Promise<void> {
  const harness = await startAwsHarness();
  const meter = await startDynamoMeter(harness.dynamoEndpoint);
  const ec2 = await startEc2Server();
  const clusters: ClusterConfig[] = [
    {
      name: 'bench-euw1',
      source: { profile: 'eks', nodeGroups: [], containerInsights: true, custom: {} },
      overrides: {},
    },
  ];
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: meter.endpoint,
    AWS_ENDPOINT_URL_EC2: ec2.endpoint,
    SENTINEL_CONFIG_FILE: writeConfig({ clusters }),
    SENTINEL_TABLE: TABLE,
    SENTINEL_OPS_ACCOUNT: NODE_EVENTS_ACCOUNT,
    SENTINEL_DEPLOYMENT: 'bench',
  });
  const output = captureOutput();
  let clock = START;
  Date.now = () => clock;
  const { handler } = (await import('../functions/node-churn/handler.ts')) as unknown as {
    handler: (event: object, context: Context) => Promise<unknown>;
  };
  const durations: number[] = [];
  let events = 0;
  const deliver = async (event: object, at: number) => {
    clock = at;
    const started = performance.now();
    await handler(event, { awsRequestId: `bench-${++events}` } as Context);
    durations.push(performance.now() - started);
  };
  // Half Karpenter nodes (placed at `running`), half managed node group nodes (placed by a lookup while draining).
  for (let n = 0; n < TERMINATIONS; n++) {
    const id = `i-${n.toString(16).padStart(17, '0')}`;
    const at = START + n * 60_000;
    if (n % 2 === 0) {
      ec2.instances.set(id, karpenterTags('bench-euw1'));
      await deliver(stateChange(id, 'running', at - 3_600_000), at);
      await deliver(stateChange(id, 'shutting-down', at), at);
      await deliver(stateChange(id, 'terminated', at + 60_000), at + 60_000);
    } else {
      ec2.instances.set(id, { 'eks:cluster-name': 'bench-euw1' });
      const group = 'eks-general-1ac6d5e1';
      await deliver(lifecycleAction(group, id, at), at);
      await deliver(stateChange(id, 'shutting-down', at + 300_000), at + 300_000);
      await deliver(terminateSuccessful(group, id, at, at + 300_000, unhealthyCause(at)), at + 300_000);
      await deliver(stateChange(id, 'terminated', at + 360_000), at + 360_000);
    }
  }
  const written = [...meter.usage.values()].reduce((n, u) => n + u.writeUnits, 0);
  meter.reset();
  const reader = new DynamoDbNodeChurnReader(
    new DynamoDbTable({ client: documentClient(), table: TABLE, now: () => clock }),
  );
  const reads: number[] = [];
  // The poller's look-back: the 6-hour baseline and 30-minute window of node-churn, over the busiest stretch.
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    await reader.terminations('bench-euw1', START, START + 390 * 60_000);
    reads.push(performance.now() - started);
  }
  const readUnits = [...meter.usage.values()].reduce((n, u) => n + u.readUnits, 0) / reads.length;
  output.restore();
  const sorted = [...durations].sort((a, b) => a - b);
  console.log(
    JSON.stringify(
      {
        terminations: TERMINATIONS,
        events,
        eventMedianMs: Number(median(durations).toFixed(1)),
        eventP99Ms: Number((sorted[Math.floor(sorted.length * 0.99)] ?? 0).toFixed(1)),
        writeUnitsPerEvent: Number((written / events).toFixed(2)),
        describeInstancesCalls: ec2.calls.DescribeInstances ?? 0,
        pollReadMedianMs: Number(median(reads).toFixed(1)),
        pollReadUnits: Number(readUnits.toFixed(2)),
      },
      null,
      2,
    ),
  );
  await Promise.all([harness.close(), meter.close(), ec2.close()]);
}

await main();
