import { setTimeout as sleep } from 'node:timers/promises';
import { documentClient } from '../../aws/clients.ts';
import { DynamoDbDeliveryLedger } from '../../aws/dynamodb/delivery-ledger.ts';
import { channelFor } from '../../aws/vendors/channels.ts';
import type { RetryPolicy } from '../../aws/vendors/http.ts';
import { secretValues } from '../../aws/vendors/secret-values.ts';
import { deliverBatch } from '../../functions/delivery/deliver-batch.ts';
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
  SECRETS,
  sqsEvent,
  startDeliveryHarness,
  VENDOR_SUBSCRIBERS,
} from '../support/delivery-harness.ts';
import { replayShipped } from '../support/engine-fixtures.ts';

let harness: DeliveryHarness;
let handler: DeliveryHandler;
/** The OPA outage's page, update, a reminder and resolve; the fleet outage's page, a join and resolve. */
let stories: Notification[][];

/** A reminder of a page, as dedup sends it after `renotify` of silence: an update with the same incidents. */
function reminderOf(page: Notification, at: string): Notification {
  return { ...page, id: `${at}/update/${page.rule}/reminder`, at, kind: 'update', reason: 'reminder' };
}

/** Clusters that joined a fleet incident: an update whose incident list starts with the joiner, not the founder. */
function joinOf(page: Notification, cluster: string, at: string): Notification {
  return {
    ...page,
    id: `${at}/update/${page.rule}/joined`,
    at,
    kind: 'update',
    reason: 'joined',
    clusters: [cluster],
    incidents: [`${cluster}/${page.rule}/${at}`],
  };
}

beforeAll(async () => {
  harness = await startDeliveryHarness();
  const opa = (await replayShipped('opa-webhook-outage')).notifications.filter((n) => n.severity === 'critical');
  const fleet = (await replayShipped('fleet-webhook-outage')).notifications.filter((n) => n.severity === 'critical');
  const [opaPage, opaUpdate] = opa;
  const opaResolve = opa.at(-1)?.kind === 'resolve' ? opa.at(-1) : undefined;
  const [fleetPage, fleetResolve] = fleet;
  if (!opaPage || !opaUpdate || !opaResolve || !fleetPage || !fleetResolve) throw new Error('scenario stories changed');
  stories = [
    [opaPage, opaUpdate, reminderOf(opaPage, '2019-03-04T10:31:00Z'), opaResolve],
    [fleetPage, joinOf(fleetPage, 'dev-d', '2025-02-14T09:30:00Z'), fleetResolve],
  ];
  const clusters = [...new Set(stories.flat().flatMap((n) => n.clusters))].map((name) => ({ name }));
  handler = await loadDelivery(clusters);
});

afterAll(async () => {
  await harness?.close();
});

beforeEach(async () => {
  await harness.reset();
});

const deliver = (notifications: readonly Notification[]) => handler(sqsEvent(notifications), LAMBDA_CONTEXT);

/** The delivery function's use case with dependencies built now, as a new container builds them. */
function directDeps(retry?: RetryPolicy) {
  const secrets = secretValues();
  const endpoints = { pagerduty: harness.pagerduty.endpoint, opsgenie: harness.opsgenie.endpoint };
  const integrations = pagingIntegrations({
    subscriptions: { paging: [{ subscribers: VENDOR_SUBSCRIBERS }], notice: [] },
  } as never);
  return {
    integrations,
    channelFor: (integration: (typeof integrations)[0]) =>
      channelFor(integration, { secrets, endpoints, ...(retry && { retry }), statusWaitsMs: [10, 20, 40, 80] }),
    ledger: new DynamoDbDeliveryLedger(documentClient(), TABLE),
    now: Date.now,
    leaseMs: 60_000,
    logger: { info: () => undefined, error: () => undefined },
  };
}

async function outcomeAtOpsgenie(notification: Notification) {
  const opsgenie = pagingIntegrations({
    subscriptions: { paging: [{ subscribers: VENDOR_SUBSCRIBERS }], notice: [] },
  } as never).find((integration) => integration.subscriber.protocol === 'opsgenie');
  return new DynamoDbDeliveryLedger(documentClient(), TABLE).outcomeOf(opsgenie?.id ?? '', notification.id);
}

/** Per incident: one PagerDuty incident and one Opsgenie alert, closed, every update in it once. */
function expectOneClosedIncidentPerStory(updates: 'exactly-once' | 'at-least-once' = 'exactly-once') {
  for (const story of stories) {
    const key = incidentKey(story[0] as Notification);
    const notes = story.filter((n) => n.kind === 'update').length;
    const incidents = harness.pagerduty.incidentsFor(key);
    const alerts = harness.opsgenie.alertsFor(key);
    expect(incidents.map((i) => i.status)).toEqual(['resolved']);
    expect(alerts.map((a) => a.status)).toEqual(['closed']);
    if (updates === 'exactly-once') {
      expect(incidents[0]?.triggers).toHaveLength(story.length - 1);
      expect(alerts[0]?.notes).toHaveLength(notes);
    } else {
      expect(alerts[0]?.notes.length).toBeGreaterThanOrEqual(notes);
    }
  }
  expect(harness.pagerduty.incidents).toHaveLength(stories.length);
  expect(harness.opsgenie.alerts).toHaveLength(stories.length);
  // A close retried after a timeout can land twice; the second finds the alert closed already, and does no harm.
  const failed = harness.opsgenie.failedRequests;
  expect(updates === 'exactly-once' ? failed : failed.filter((f) => !f.startsWith('CloseAlert'))).toEqual([]);
}

describe('the delivery function', () => {
  it('keeps trigger, update, reminder and resolve of each incident in one PagerDuty incident and one Opsgenie alert', async () => {
    for (const step of [0, 1, 2, 3]) {
      const answer = await deliver(stories.flatMap((story) => story.slice(step, step + 1)));
      expect(answer.batchItemFailures).toEqual([]);
    }

    expectOneClosedIncidentPerStory();
    expect(harness.pagerduty.unmatchedResolves).toEqual([]);
    const [opaPage] = stories[0] ?? [];
    expect(harness.opsgenie.alertsFor(incidentKey(opaPage as Notification))[0]?.message).toMatch(
      /^Admission webhook is black-holing API writes on dev-euw1/,
    );
  });

  it('loses and doubles nothing when every first attempt is throttled or fails', async () => {
    harness.pagerduty.failEveryFirstAttempt(['throttle', 'server-error', 'unavailable']);
    harness.opsgenie.failEveryFirstAttempt(['unavailable', 'throttle', 'server-error']);
    harness.secrets.faults.inject({ kind: 'throttle', beforeAttempt: 2 });

    for (const step of [0, 1, 2, 3]) {
      const answer = await deliver(stories.flatMap((story) => story.slice(step, step + 1)));
      expect(answer.batchItemFailures).toEqual([]);
    }

    expectOneClosedIncidentPerStory();
    const fired = (server: { faults: typeof harness.pagerduty.faults }) =>
      server.faults.fired.throttle + server.faults.fired['server-error'] + server.faults.fired.unavailable;
    expect(fired(harness.pagerduty)).toBeGreaterThanOrEqual(7);
    expect(fired(harness.opsgenie)).toBeGreaterThanOrEqual(7);
  });

  it('sends nothing twice when SQS redelivers a batch, whole or in part, in any order', async () => {
    const all = stories.flat();
    expect((await deliver(all)).batchItemFailures).toEqual([]);
    expect((await deliver(all)).batchItemFailures).toEqual([]);
    expect((await deliver([...all].reverse().slice(0, 3))).batchItemFailures).toEqual([]);

    expectOneClosedIncidentPerStory();
    const calls = harness.pagerduty.calls.Enqueue;
    expect(calls).toBe(all.length);
  });

  it('pages no one for an incident whose resolve is delivered before its page: neither opens it', async () => {
    const [page, update, , resolve] = stories[0] ?? [];
    if (!page || !update || !resolve) throw new Error('story changed');
    harness.pagerduty.faults.inject({ kind: 'unavailable' });
    harness.opsgenie.faults.inject({ kind: 'unavailable' });

    const failed = await deliver([page]);
    harness.pagerduty.faults.clear();
    harness.opsgenie.faults.clear();
    const resolved = await deliver([resolve]);
    const late = await deliver([page, update]);

    expect(failed.batchItemFailures).toHaveLength(1);
    expect(resolved.batchItemFailures).toEqual([]);
    expect(late.batchItemFailures).toEqual([]);
    const key = incidentKey(page);
    expect(harness.pagerduty.incidentsFor(key)).toEqual([]);
    expect(harness.opsgenie.alertsFor(key)).toEqual([]);
    expect(harness.opsgenie.failedRequests).toEqual([]);
  });

  it('retries a record whose delivery failed, and sends only to the integration that missed it', async () => {
    const [page] = stories[0] ?? [];
    if (!page) throw new Error('story changed');
    harness.opsgenie.faults.inject({ kind: 'server-error' });

    const first = await deliver([page]);
    harness.opsgenie.faults.clear();
    const retried = await deliver([page]);

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: `msg-${page.id}` }]);
    expect(retried.batchItemFailures).toEqual([]);
    expect(harness.pagerduty.calls.Enqueue).toBe(1);
    expect(harness.opsgenie.alertsFor(incidentKey(page))).toHaveLength(1);
  });

  it('fails a message that is not a notification alone, and delivers the rest of its batch', async () => {
    const [page] = stories[0] ?? [];
    if (!page) throw new Error('story changed');
    const event = sqsEvent([page]);
    const stray = { ...event.Records[0], messageId: 'stray', body: '{"AlarmName":"x"}' } as (typeof event.Records)[0];

    const answer = await handler({ Records: [stray, ...event.Records] }, LAMBDA_CONTEXT);

    expect(answer.batchItemFailures).toEqual([{ itemIdentifier: 'stray' }]);
    expect(harness.pagerduty.incidents).toHaveLength(1);
  });

  it('picks up a rotated key without a deploy, and never writes a key to the log', async () => {
    const [page, update] = stories[0] ?? [];
    if (!page || !update) throw new Error('story changed');
    const output = captureOutput();
    try {
      await deliver([page]);
      const rotated = { pagerduty: 'R0UTINGKEY0000000000000000000002', opsgenie: 'genie-key-0002' };
      harness.secrets.putSecret(SECRETS.pagerduty.name, JSON.stringify({ routingKey: rotated.pagerduty }));
      harness.secrets.putSecret(SECRETS.opsgenie.name, rotated.opsgenie);
      harness.opsgenie.apiKeys.clear();
      harness.opsgenie.apiKeys.add(rotated.opsgenie);

      const answer = await deliver([update]);

      expect(answer.batchItemFailures).toEqual([]);
      expect(harness.opsgenie.alertsFor(incidentKey(page))[0]?.notes).toHaveLength(1);
      const logged = JSON.stringify(output.json());
      for (const key of [KEYS.pagerduty, KEYS.opsgenie, rotated.pagerduty, rotated.opsgenie]) {
        expect(logged).not.toContain(key);
      }
    } finally {
      output.restore();
    }
  });

  it('updates and resolves an incident opened before a key rotation through the key it was opened with', async () => {
    const [page, update, , resolve] = stories[0] ?? [];
    const [fleetPage] = stories[1] ?? [];
    if (!page || !update || !resolve || !fleetPage) throw new Error('story changed');
    await deliver([page]);
    // The documented rotation: a new integration key in the secret; the old integration stays until its incidents close.
    const rotated = 'R0UTINGKEY0000000000000000000002';
    harness.secrets.putSecret(SECRETS.pagerduty.name, JSON.stringify({ routingKey: rotated }));
    harness.pagerduty.routingKeys.add(rotated);
    // A new container, which reads the rotated key at once.
    const afterRotation = directDeps();

    for (const notification of [update, resolve, fleetPage]) {
      expect((await deliverBatch(afterRotation, sqsEvent([notification]).Records)).batchItemFailures).toEqual([]);
    }

    const [opened] = harness.pagerduty.incidentsFor(incidentKey(page));
    expect([opened?.routingKey, opened?.status, opened?.triggers.length]).toEqual([KEYS.pagerduty, 'resolved', 2]);
    expect(harness.pagerduty.unmatchedResolves).toEqual([]);
    expect(harness.pagerduty.incidentsFor(incidentKey(fleetPage)).map((i) => i.routingKey)).toEqual([rotated]);
  });

  it('follows each Opsgenie request to its status, and retries one Opsgenie failed until it succeeds', async () => {
    const [page] = stories[0] ?? [];
    if (!page) throw new Error('story changed');
    harness.opsgenie.processingReads = 2;
    harness.opsgenie.failNextRequests = 1;

    const first = await deliver([page]);
    const retried = await deliver([page]);

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: `msg-${page.id}` }]);
    expect(await outcomeAtOpsgenie(page)).toMatchObject({ outcome: 'opened' });
    expect(retried.batchItemFailures).toEqual([]);
    expect(harness.opsgenie.alertsFor(incidentKey(page))).toHaveLength(1);
    expect(harness.opsgenie.calls.GetRequestStatus).toBeGreaterThanOrEqual(2 * 3);
  });

  it('records why a delivery failed, for test-page and the dead-letter queue', async () => {
    const [page] = stories[0] ?? [];
    if (!page) throw new Error('story changed');
    harness.opsgenie.failNextRequests = 1;

    await deliver([page]);

    expect(await outcomeAtOpsgenie(page)).toEqual({
      lastError: expect.stringMatching(/Opsgenie create of .*: Opsgenie failed the request: Internal error/),
    });
  });

  it('retries vendor timeouts on every first attempt within the retry policy', async () => {
    const deps = directDeps({ maxAttempts: 4, attemptTimeoutMs: 150, baseDelayMs: 20, maxDelayMs: 200 });

    for (const step of [0, 1, 2, 3]) {
      const batch = stories.flatMap((story) => story.slice(step, step + 1));
      // The first request of each notification in this batch is answered after the client stopped waiting.
      harness.pagerduty.faults.inject({ kind: 'slow', delayMs: 400, times: batch.length });
      harness.opsgenie.faults.inject({ kind: 'slow', delayMs: 400, times: batch.length });
      const answer = await deliverBatch(deps, sqsEvent(batch).Records);
      expect(answer.batchItemFailures).toEqual([]);
      // The requests the client gave up on land before the next notification, which comes minutes later for real.
      await sleep(500);
    }

    // A request that timed out may still have been processed, as at the real vendors: an Opsgenie note can then land
    // twice. The incident and the alert stay one each, and both close.
    expectOneClosedIncidentPerStory('at-least-once');
    expect(harness.pagerduty.faults.fired.slow).toBe(stories.flat().length);
    expect(harness.opsgenie.faults.fired.slow).toBe(stories.flat().length);
  });
});
