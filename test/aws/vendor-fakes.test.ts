import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { type PagerDutyServer, startPagerDutyServer } from '../../support/pagerduty-server.ts';
import { type SecretsManagerServer, startSecretsManagerServer } from '../../support/secrets-manager-server.ts';
import { type OpsgenieServer, startOpsgenieServer } from '../support/opsgenie-server.ts';

/** The loopback vendors refuse what the real ones refuse, so a delivery that passes against them passes for real. */
let pagerduty: PagerDutyServer;
let opsgenie: OpsgenieServer;
let secrets: SecretsManagerServer;

beforeAll(async () => {
  [pagerduty, opsgenie, secrets] = await Promise.all([
    startPagerDutyServer(),
    startOpsgenieServer(),
    startSecretsManagerServer(),
  ]);
  pagerduty.routingKeys.add('KEY');
  opsgenie.apiKeys.add('GENIE');
});

afterAll(async () => {
  await Promise.all([pagerduty?.close(), opsgenie?.close(), secrets?.close()]);
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const trigger = (fields: Record<string, unknown> = {}) => ({
  routing_key: 'KEY',
  event_action: 'trigger',
  dedup_key: 'k',
  payload: { summary: 's', source: 'dev-a', severity: 'critical' },
  ...fields,
});

describe('the loopback PagerDuty', () => {
  it.each([
    ['an unknown routing key', { routing_key: 'OTHER' }, 'Invalid routing key'],
    ['a dedup_key over 255 characters', { dedup_key: 'k'.repeat(256) }, 'dedup_key'],
    [
      'a summary over 1024 characters',
      { payload: { summary: 's'.repeat(1025), source: 'x', severity: 'critical' } },
      'summary',
    ],
    ['an unknown severity', { payload: { summary: 's', source: 'x', severity: 'high' } }, 'severity'],
  ])('refuses %s with 400', async (_, fields, error) => {
    const response = await post(`${pagerduty.endpoint}/v2/enqueue`, trigger(fields));

    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain(error);
  });

  it('answers an injected throttle with 429', async () => {
    pagerduty.faults.inject({ kind: 'throttle', times: 1 });

    expect((await post(`${pagerduty.endpoint}/v2/enqueue`, trigger())).status).toBe(429);
  });
});

describe('the loopback Opsgenie', () => {
  it('refuses a request without its GenieKey with 401', async () => {
    expect((await post(`${opsgenie.endpoint}/v2/alerts`, { message: 'm' })).status).toBe(401);
  });

  it.each([
    ['a message over 130 characters', { message: 'm'.repeat(131) }],
    ['an alias over 512 characters', { message: 'm', alias: 'a'.repeat(513) }],
    ['more than 20 tags', { message: 'm', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }],
  ])('refuses %s with 422', async (_, body) => {
    const response = await post(`${opsgenie.endpoint}/v2/alerts`, body, { authorization: 'GenieKey GENIE' });

    expect(response.status).toBe(422);
  });

  it('accepts a close by alias with 202 and records it as failed when no alert is open', async () => {
    const response = await post(
      `${opsgenie.endpoint}/v2/alerts/${encodeURIComponent('a/b')}/close?identifierType=alias`,
      { note: 'n' },
      { authorization: 'GenieKey GENIE' },
    );

    expect(response.status).toBe(202);
    expect(opsgenie.failedRequests).toEqual(['CloseAlert a/b: Alert does not exist']);
  });
});

describe('the loopback Secrets Manager', () => {
  const client = () =>
    new SecretsManagerClient({
      endpoint: secrets.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });

  it('answers GetSecretValue through the real SDK, and names a missing secret as the SDK expects', async () => {
    secrets.putSecret('sentinel/x', 'value');

    const found = await client().send(new GetSecretValueCommand({ SecretId: 'sentinel/x' }));
    const missing = client().send(new GetSecretValueCommand({ SecretId: 'sentinel/none' }));

    expect(found.SecretString).toBe('value');
    await expect(missing).rejects.toBeInstanceOf(ResourceNotFoundException);
  });
});
