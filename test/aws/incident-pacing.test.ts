import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { PARTITION } from '../../aws/dynamodb/table-keys.ts';
import type { Incident } from '../../shared/engine/incident.ts';
import { type AwsHarness, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import {
  type DynamoDbThroughputProxy,
  scaledThroughput,
  startDynamoDbThroughputProxy,
} from '../../support/dynamodb-throughput-proxy.ts';
import { openIncident } from '../support/engine-fixtures.ts';

/**
 * A fleet outage's incident writes against DynamoDB's throughput line, scaled down so that a few dozen incidents meet
 * it as thousands do at DynamoDB's own: the writes are paced under the line, so that none is refused.
 */
const SCALE = 0.1;
const LINE = scaledThroughput(SCALE);

describe('the incident writes of a fleet outage at a partition’s line', () => {
  let harness: AwsHarness;
  let proxy: DynamoDbThroughputProxy;
  const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;

  beforeAll(async () => {
    harness = await startAwsHarness();
    proxy = await startDynamoDbThroughputProxy({ target: harness.dynamoEndpoint, limits: LINE });
    process.env.AWS_ENDPOINT_URL_DYNAMODB = proxy.endpoint;
  });

  afterAll(async () => {
    process.env.AWS_ENDPOINT_URL_DYNAMODB = endpoint;
    await proxy.close();
    await harness.close();
  });

  it('opens and resolves an incident on each of 80 clusters with nothing refused', async () => {
    const at = Date.parse('2026-11-20T10:00:00Z');
    const stores = dynamoDbStores({
      client: documentClient(),
      table: TABLE,
      now: () => at,
      partitionWriteUnits: LINE.partitionWriteUnits,
    });
    const opened: Incident[] = Array.from({ length: 80 }, (_, i) =>
      openIncident(`fleet-${i}`, 'webhook-blackhole', 0, { id: `fleet-${i}/webhook-blackhole/${at}` }),
    );
    const resolved: Incident[] = opened.map((incident) => ({
      ...incident,
      status: 'resolved',
      resolvedAt: new Date(at + 600_000).toISOString(),
    }));

    await stores.incidents.save(opened, at);
    const openAfterPage = (await stores.incidents.openIncidents()).length;
    await stores.incidents.save(resolved, at + 600_000);

    expect([
      openAfterPage,
      (await stores.incidents.openIncidents()).length,
      Object.fromEntries(proxy.throttledRequests),
      proxy.partitions.get(PARTITION.open)?.writeUnits,
    ]).toEqual([80, 0, {}, expect.any(Number)]);
  });
});
