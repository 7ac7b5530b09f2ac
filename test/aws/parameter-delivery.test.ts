import { documentClient } from '../../aws/clients.ts';
import { DynamoDbDeliveryLedger } from '../../aws/dynamodb/delivery-ledger.ts';
import { channelFor } from '../../aws/vendors/channels.ts';
import { secretValues } from '../../aws/vendors/secret-values.ts';
import { deliverBatch } from '../../functions/delivery/deliver-batch.ts';
import { deploymentConfigSchema } from '../../shared/config/deployment-config.ts';
import { pagingIntegrations } from '../../shared/delivery/paging-integrations.ts';
import { incidentKey } from '../../shared/delivery/vendor-messages.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { TABLE } from '../../support/aws-harness.ts';
import { captureOutput } from '../../support/captured-output.ts';
import {
  type DeliveryHandler,
  type DeliveryHarness,
  KEYS,
  LAMBDA_CONTEXT,
  loadDelivery,
  PARAMETERS,
  sqsEvent,
  startDeliveryHarness,
} from '../support/delivery-harness.ts';
import { replayShipped } from '../support/engine-fixtures.ts';

/**
 * PagerDuty paged by the delivery function with its routing key in a SecureString parameter of Parameter Store rather
 * than a secret: the handler as Lambda loads it, the real @aws-sdk/client-ssm and Powertools' SSMProvider, the
 * loopback Parameter Store and PagerDuty.
 */
const SUBSCRIBERS = [{ protocol: 'pagerduty', routingKeySecret: { parameterName: PARAMETERS.pagerduty } }];
const ROTATED = 'R0UTINGKEY0000000000000000000002';

let harness: DeliveryHarness;
let handler: DeliveryHandler;
/** The OPA outage's page, an update and its resolve; the fleet outage's page. */
let page: Notification;
let update: Notification;
let resolve: Notification;
let otherPage: Notification;

beforeAll(async () => {
  harness = await startDeliveryHarness();
  const opa = (await replayShipped('opa-webhook-outage')).notifications.filter((n) => n.severity === 'critical');
  const fleet = (await replayShipped('fleet-webhook-outage')).notifications.filter((n) => n.severity === 'critical');
  const [opaPage, opaUpdate] = opa;
  const opaResolve = opa.at(-1);
  const [fleetPage] = fleet;
  if (!opaPage || !opaUpdate || opaResolve?.kind !== 'resolve' || !fleetPage)
    throw new Error('scenario stories changed');
  [page, update, resolve, otherPage] = [opaPage, opaUpdate, opaResolve, fleetPage];
  const clusters = [...new Set([...opa, ...fleet].flatMap((n) => n.clusters))].map((name) => ({ name }));
  handler = await loadDelivery(clusters, [{ subscribers: SUBSCRIBERS }]);
});

afterAll(async () => {
  await harness?.close();
});

beforeEach(async () => {
  await harness.reset();
});

const deliver = (notifications: readonly Notification[]) => handler(sqsEvent(notifications), LAMBDA_CONTEXT);

/** The delivery function's use case with dependencies built now, as a new container builds them. */
function newContainer() {
  const config = deploymentConfigSchema.parse({
    clusters: [{ name: 'dev-euw1' }],
    subscriptions: { paging: [{ subscribers: SUBSCRIBERS }] },
  });
  const integrations = pagingIntegrations(config);
  const secrets = secretValues();
  const endpoints = { pagerduty: harness.pagerduty.endpoint };
  return {
    integrations,
    channelFor: (integration: (typeof integrations)[0]) => channelFor(integration, { secrets, endpoints }),
    ledger: new DynamoDbDeliveryLedger(documentClient(), TABLE),
    now: Date.now,
    leaseMs: 60_000,
    logger: { info: () => undefined, error: () => undefined },
  };
}

describe('PagerDuty with its routing key in a SecureString parameter', () => {
  it('pages, updates and resolves one incident, reading the key from Parameter Store and never from Secrets Manager', async () => {
    const secretReads = harness.secrets.reads.length;

    const answers = [await deliver([page]), await deliver([update]), await deliver([resolve])];

    expect(answers.flatMap((answer) => answer.batchItemFailures)).toEqual([]);
    const [incident] = harness.pagerduty.incidentsFor(incidentKey(page));
    expect([incident?.routingKey, incident?.status, incident?.triggers.length]).toEqual([
      KEYS.pagerduty,
      'resolved',
      2,
    ]);
    // The function's first run in this file: its container reads the key once, and has it cached after.
    expect(harness.parameters.decryptedReads).toEqual([PARAMETERS.pagerduty]);
    expect(harness.secrets.reads.length).toBe(secretReads);
  });

  it('resolves an incident opened before a rotation with the version it was opened with, and pages anew with the new one', async () => {
    await deliver([page]);
    // The rotation: a new version of the parameter; the old PagerDuty integration stays until its incidents close.
    harness.parameters.putParameter(PARAMETERS.pagerduty, ROTATED);
    harness.pagerduty.routingKeys.add(ROTATED);
    const afterRotation = newContainer();

    for (const notification of [update, resolve, otherPage]) {
      expect((await deliverBatch(afterRotation, sqsEvent([notification]).Records)).batchItemFailures).toEqual([]);
    }

    const [opened] = harness.pagerduty.incidentsFor(incidentKey(page));
    expect([opened?.routingKey, opened?.status, opened?.triggers.length]).toEqual([KEYS.pagerduty, 'resolved', 2]);
    expect(harness.pagerduty.unmatchedResolves).toEqual([]);
    expect(harness.pagerduty.incidentsFor(incidentKey(otherPage)).map((i) => i.routingKey)).toEqual([ROTATED]);
    expect(harness.parameters.reads).toContain(`${PARAMETERS.pagerduty}:1`);
  });

  it('reads the parameter again at once when PagerDuty refuses the cached key, and logs no key', async () => {
    const output = captureOutput();
    try {
      await deliver([page]);
      harness.parameters.putParameter(PARAMETERS.pagerduty, ROTATED);
      harness.pagerduty.routingKeys.clear();
      harness.pagerduty.routingKeys.add(ROTATED);
      // The container has the old key cached, for minutes yet.
      const readsBefore = harness.parameters.decryptedReads.length;

      const answer = await deliver([otherPage]);

      expect(answer.batchItemFailures).toEqual([]);
      expect(harness.pagerduty.incidentsFor(incidentKey(otherPage)).map((i) => i.routingKey)).toEqual([ROTATED]);
      expect(harness.parameters.decryptedReads.slice(readsBefore)).toEqual([PARAMETERS.pagerduty]);
      const logged = JSON.stringify(output.json());
      for (const key of [KEYS.pagerduty, ROTATED]) expect(logged).not.toContain(key);
    } finally {
      output.restore();
    }
  });

  it('fails the record and names the parameter when it does not exist, so that SQS retries it', async () => {
    harness.parameters.deleteParameter(PARAMETERS.pagerduty);
    const container = newContainer();
    const [integration] = container.integrations;

    const answer = await deliverBatch(container, sqsEvent([page]).Records);
    const outcome = await new DynamoDbDeliveryLedger(documentClient(), TABLE).outcomeOf(integration?.id ?? '', page.id);

    expect(answer.batchItemFailures).toHaveLength(1);
    expect(harness.pagerduty.incidents).toEqual([]);
    expect(outcome?.lastError).toContain(
      `parameter ${PARAMETERS.pagerduty} does not exist in the ops account and Region`,
    );
  });
});
