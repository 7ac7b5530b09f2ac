import { channelFor } from '../../aws/vendors/channels.ts';
import { secretValues } from '../../aws/vendors/secret-values.ts';
import { loadBundledConfig } from '../../functions/bundled-config.ts';
import { pagingIntegrations } from '../../shared/delivery/paging-integrations.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { TABLE, writeConfig } from '../../support/aws-harness.ts';
import { captureOutput } from '../../support/captured-output.ts';
import {
  type DeliveryHandler,
  type DeliveryHarness,
  LAMBDA_CONTEXT,
  sqsEvent,
  startDeliveryHarness,
} from '../support/delivery-harness.ts';
import { replayShipped } from '../support/engine-fixtures.ts';
import { startWebhookServer, type WebhookServer } from '../support/webhook-server.ts';

/** The webhooks' URLs live in secrets: a JSON field for the paging one, the whole string for the notice one. */
const PAGING_SECRET = { secretName: 'sentinel/chat-hook', jsonField: 'url' };
const NOTICE_SECRET = { secretName: 'sentinel/ticket-hook' };
/** A credential in the path, as incoming-webhook URLs carry one: it must never reach a log line. */
const TOKEN = 'T0KEN0000000000000000000000000001';

let harness: DeliveryHarness;
let webhook: WebhookServer;
let handler: DeliveryHandler;
let page: Notification;
let update: Notification;
let resolve: Notification;

const urlAt = (path: string) => `${webhook.endpoint}${path}`;
const deliver = (notifications: readonly Notification[]) => handler(sqsEvent(notifications), LAMBDA_CONTEXT);
const postedIds = (path: string) => webhook.posts.filter((p) => p.path === path).map((p) => p.body.id);

beforeAll(async () => {
  [harness, webhook] = await Promise.all([startDeliveryHarness(), startWebhookServer()]);
  const opa = (await replayShipped('opa-webhook-outage')).notifications.filter((n) => n.severity === 'critical');
  // The page, its first update (the outage has two, its symptoms a minute apart) and the resolve that ends it.
  [page, update] = opa as [Notification, Notification];
  resolve = opa.at(-1) as Notification;
  if (!page || !update || resolve?.kind !== 'resolve') throw new Error('scenario story changed');
  const clusters = [...new Set(opa.flatMap((n) => n.clusters))].map((name) => ({ name }));
  Object.assign(process.env, {
    SENTINEL_CONFIG_FILE: writeConfig({
      clusters,
      subscriptions: {
        paging: [{ subscribers: [{ protocol: 'https', endpointSecret: PAGING_SECRET }] }],
        notice: [{ subscribers: [{ protocol: 'https', endpointSecret: NOTICE_SECRET }] }],
      },
    }),
    SENTINEL_TABLE: TABLE,
    SENTINEL_DEPLOYMENT: 'test',
  });
  handler = (await import('../../functions/delivery/handler.ts')).handler as unknown as DeliveryHandler;
});

afterAll(async () => {
  await Promise.all([harness?.close(), webhook?.close()]);
});

beforeEach(async () => {
  await harness.reset();
  webhook.reset();
  harness.secrets.putSecret(PAGING_SECRET.secretName, JSON.stringify({ url: urlAt(`/hooks/${TOKEN}`) }));
  harness.secrets.putSecret(NOTICE_SECRET.secretName, urlAt('/tickets'));
});

describe('a webhook whose URL is a secret', () => {
  it('receives the page, its update and its resolve as the notification JSON, each once', async () => {
    const answer = await deliver([page, update, resolve]);

    expect(answer.batchItemFailures).toEqual([]);
    expect(postedIds(`/hooks/${TOKEN}`)).toEqual([page.id, update.id, resolve.id]);
    expect(webhook.posts[0]?.body).toEqual(JSON.parse(JSON.stringify(page)));
  });

  it('gets the tickets of the notice topic when it subscribes there, and not the pages', async () => {
    const ticket: Notification = { ...page, id: `${page.id}/ticket`, kind: 'ticket', severity: 'warning' };

    await deliver([page, ticket]);

    expect(postedIds('/tickets')).toEqual([ticket.id]);
    expect(postedIds(`/hooks/${TOKEN}`)).toEqual([page.id]);
  });

  it('retries a POST that is throttled or fails, and posts each notification once', async () => {
    webhook.failEveryFirstAttempt(['server-error', 'throttle', 'unavailable']);

    const answer = await deliver([page, update, resolve]);

    expect(answer.batchItemFailures).toEqual([]);
    expect(webhook.faults.fired['server-error'] + webhook.faults.fired.throttle).toBeGreaterThanOrEqual(2);
    expect(postedIds(`/hooks/${TOKEN}`)).toEqual([page.id, update.id, resolve.id]);
  });

  it('fails the record of a POST that keeps failing, so SQS redelivers it, and delivers it once the webhook is back', async () => {
    webhook.retired.add(`/hooks/${TOKEN}`);

    const first = await deliver([page]);
    webhook.retired.clear();
    const retried = await deliver([page]);

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: `msg-${page.id}` }]);
    expect(retried.batchItemFailures).toEqual([]);
    expect(postedIds(`/hooks/${TOKEN}`)).toEqual([page.id]);
  });

  it('posts to the new URL once the secret is updated, with no deploy, and never logs a URL', async () => {
    const output = captureOutput();
    try {
      await deliver([page]);
      // The documented rotation: a new URL in the secret, then the old one revoked. This container has the old URL
      // cached; the old URL's refusal makes it read the secret again.
      const rotated = `/hooks/${TOKEN.replace('1', '2')}`;
      harness.secrets.putSecret(PAGING_SECRET.secretName, JSON.stringify({ url: urlAt(rotated) }));
      webhook.retired.add(`/hooks/${TOKEN}`);

      const answer = await deliver([update]);

      expect(answer.batchItemFailures).toEqual([]);
      expect(postedIds(rotated)).toEqual([update.id]);
      const logged = JSON.stringify(output.json());
      expect(logged).not.toContain(TOKEN);
      expect(logged).not.toContain(TOKEN.replace('1', '2'));
    } finally {
      output.restore();
    }
  });

  it('refuses a secret that does not hold a URL, naming the secret and not its value', async () => {
    harness.secrets.putSecret(PAGING_SECRET.secretName, JSON.stringify({ url: `not a url ${TOKEN}` }));
    // A new container: nothing cached.
    const [integration] = pagingIntegrations(loadBundledConfig(process.env.SENTINEL_CONFIG_FILE ?? '').config);
    if (!integration) throw new Error('no integration');
    const channel = channelFor(integration, { secrets: secretValues() });

    const refused = channel.open(page);

    await expect(refused).rejects.toThrow('secret sentinel/chat-hook does not hold a URL');
    await expect(refused).rejects.not.toThrow(TOKEN);
  });
});
