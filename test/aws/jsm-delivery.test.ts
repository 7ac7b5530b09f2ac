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
import { type DeliveryHarness, sqsEvent, startDeliveryHarness } from '../support/delivery-harness.ts';
import { replayShipped } from '../support/engine-fixtures.ts';
import { type JsmServer, startJsmServer } from '../support/jsm-server.ts';

const SECRET = 'sentinel/jsm';
const KEY = 'jsm-api-key-0001';

let harness: DeliveryHarness;
let jsm: JsmServer;
let story: Notification[];

beforeAll(async () => {
  harness = await startDeliveryHarness();
  jsm = await startJsmServer();
  story = (await replayShipped('opa-webhook-outage')).notifications.filter((n) => n.severity === 'critical');
});

afterAll(async () => {
  await Promise.all([harness?.close(), jsm?.close()]);
});

beforeEach(async () => {
  await harness.reset();
  jsm.reset();
  harness.secrets.putSecret(SECRET, KEY);
  jsm.apiKeys.clear();
  jsm.apiKeys.add(KEY);
});

/** The delivery function's use case, configured with one JSM subscriber on its EU site, pointed at the fake. */
function deps() {
  const config = deploymentConfigSchema.parse({
    clusters: [{ name: 'dev-euw1' }],
    subscriptions: {
      paging: [{ subscribers: [{ protocol: 'jsm', apiKeySecret: { secretName: SECRET }, region: 'eu' }] }],
    },
  });
  const integrations = pagingIntegrations(config);
  const secrets = secretValues();
  return {
    integrations,
    channelFor: (integration: (typeof integrations)[0]) =>
      channelFor(integration, { secrets, endpoints: { jsm: jsm.endpoint }, statusWaitsMs: [10, 20, 40, 80] }),
    ledger: new DynamoDbDeliveryLedger(documentClient(), TABLE),
    now: Date.now,
    leaseMs: 60_000,
    logger: { info: () => undefined, error: () => undefined },
  };
}

describe('Jira Service Management alerts, delivered natively', () => {
  it('creates an alert on the page, adds a note for the update, and closes it by alias on the resolve', async () => {
    const [page, update] = story;
    const resolve = story.at(-1);
    if (!page || !update || resolve?.kind !== 'resolve') throw new Error('story changed');
    const delivery = deps();

    for (const notification of [page, update, resolve]) {
      expect((await deliverBatch(delivery, sqsEvent([notification]).Records)).batchItemFailures).toEqual([]);
    }

    const alerts = jsm.alertsFor(incidentKey(page));
    expect(alerts.map((a) => [a.status, a.notes.length])).toEqual([['closed', 1]]);
    expect(alerts[0]?.message).toMatch(/^Admission webhook is black-holing API writes on dev-euw1/);
    expect(jsm.calls.GetRequestStatus).toBeGreaterThanOrEqual(3);
  });

  it('retries a request JSM failed when it processed it, and counts it delivered only once it succeeded', async () => {
    const [page] = story;
    if (!page) throw new Error('story changed');
    jsm.failNextRequests = 1;
    const delivery = deps();

    const first = await deliverBatch(delivery, sqsEvent([page]).Records);
    const retried = await deliverBatch(delivery, sqsEvent([page]).Records);

    expect(first.batchItemFailures).toHaveLength(1);
    expect(retried.batchItemFailures).toEqual([]);
    expect(jsm.alertsFor(incidentKey(page)).map((a) => a.status)).toEqual(['open']);
  });

  it('sends with a rotated key once the secret is updated, with no deploy', async () => {
    const [page, update] = story;
    if (!page || !update) throw new Error('story changed');
    await deliverBatch(deps(), sqsEvent([page]).Records);
    harness.secrets.putSecret(SECRET, 'jsm-api-key-0002');
    jsm.apiKeys.clear();
    jsm.apiKeys.add('jsm-api-key-0002');

    const answer = await deliverBatch(deps(), sqsEvent([update]).Records);

    expect(answer.batchItemFailures).toEqual([]);
    expect(jsm.alertsFor(incidentKey(page))[0]?.notes).toHaveLength(1);
  });
});
