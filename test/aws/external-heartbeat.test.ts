import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type AwsHarness, putScenario, startAwsHarness } from '../../support/aws-harness.ts';
import { type CapturedOutput, captureOutput } from '../../support/captured-output.ts';
import {
  harnessClusters,
  loadPoller,
  type PollHandler,
  pollAt,
  trimmedScenario,
} from '../../support/poller-harness.ts';
import { type SecretsManagerServer, startSecretsManagerServer } from '../../support/secrets-manager-server.ts';
import { type SsmServer, startSsmServer } from '../../support/ssm-server.ts';

/** A heartbeat service on loopback: it records each ping, when it came and what it carried, and answers as told. */
interface HeartbeatService {
  readonly pings: { readonly at: number; readonly url: string; readonly headers: IncomingHttpHeaders }[];
  status: number;
  /** When set, a ping without this Authorization is refused with 403, as Opsgenie refuses a key it no longer has. */
  authorization?: string;
  readonly url: string;
  close(): Promise<void>;
}

async function startHeartbeatService(): Promise<HeartbeatService> {
  const pings: HeartbeatService['pings'] = [];
  const service: Pick<HeartbeatService, 'pings' | 'status' | 'authorization'> = { pings, status: 200 };
  const server: Server = createServer((request, response) => {
    pings.push({ at: performance.now(), url: request.url ?? '', headers: request.headers });
    const refused = service.authorization !== undefined && request.headers.authorization !== service.authorization;
    // As Opsgenie answers a ping (https://docs.opsgenie.com/docs/heartbeat-api).
    response.writeHead(refused ? 403 : service.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ result: 'PONG - Heartbeat received' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(service, {
    url: `http://127.0.0.1:${port}/v2/heartbeats/sentinel-prod/ping`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** A quiet stretch of scenarios/fleet-webhook-outage.json: every poll reads fresh data and does its job. */
const scenario = trimmedScenario('scenarios/fleet-webhook-outage.json', 0);
const stepAt = (step: number) => scenario.start + step * 60_000;
const GENIE_KEY = 'GenieKey 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';

let harness: AwsHarness;
let secrets: SecretsManagerServer;
let parameters: SsmServer;
let service: HeartbeatService;
let poll: PollHandler;
let output: CapturedOutput;

beforeAll(async () => {
  output = captureOutput();
  harness = await startAwsHarness();
  [secrets, parameters, service] = await Promise.all([
    startSecretsManagerServer(),
    startSsmServer(),
    startHeartbeatService(),
  ]);
  process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = secrets.endpoint;
  process.env.AWS_ENDPOINT_URL_SSM = parameters.endpoint;
  // The URL in Secrets Manager, its key in a SecureString parameter: the poller reads each from where it is kept.
  secrets.putSecret('sentinel/heartbeat', JSON.stringify({ url: service.url }));
  parameters.putParameter('/sentinel/heartbeat-key', GENIE_KEY);
  const clusters = harnessClusters(['dev-a', 'dev-b', 'dev-c']);
  await putScenario(scenario, clusters);
  poll = await loadPoller(harness, clusters, {
    poll: { every: '1m' },
    selfMonitoring: {
      externalHeartbeat: {
        urlSecret: { secretName: 'sentinel/heartbeat', jsonField: 'url' },
        authorizationSecret: { parameterName: '/sentinel/heartbeat-key' },
      },
    },
  });
}, 60_000);

afterAll(async () => {
  output.restore();
  await Promise.all([harness.close(), secrets.close(), parameters.close(), service.close()]);
});

describe('the heartbeat outside AWS', () => {
  it('is pinged once by every poll, during the poll, and stops the moment the polls stop', async () => {
    const polls: { start: number; end: number }[] = [];
    for (let step = 20; step < 30; step++) {
      const start = performance.now();
      await pollAt(poll, stepAt(step));
      polls.push({ start, end: performance.now() });
    }
    const lastPoll = polls.at(-1)?.end ?? 0;
    // The poller stops. docs/operating.md promises the pings stop with the last poll: nothing arrives after it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    expect(service.pings.length).toBe(polls.length);
    expect(
      polls.every((p, i) => (service.pings[i]?.at ?? -1) >= p.start && (service.pings[i]?.at ?? -1) <= p.end),
    ).toBe(true);
    expect(service.pings.filter((ping) => ping.at > lastPoll)).toEqual([]);
    expect(new Set(service.pings.map((ping) => `${ping.url} ${ping.headers.authorization}`))).toEqual(
      new Set([`/v2/heartbeats/sentinel-prod/ping ${GENIE_KEY}`]),
    );
  }, 60_000);

  it('never fails a poll when the ping fails, and logs why without the URL', async () => {
    service.status = 503;
    const before = service.pings.length;
    const summary = await pollAt(poll, stepAt(30));
    service.status = 200;
    const warning = output
      .json()
      .find((line) => line.message === 'external heartbeat ping failed; the poll carries on');

    expect([summary.claim, service.pings.length - before]).toEqual(['claimed', 1]);
    expect(warning?.error).toBe('the heartbeat URL of secret sentinel/heartbeat answered HTTP 503');
    expect(JSON.stringify(output.json())).not.toContain('sentinel-prod/ping');
  }, 60_000);

  it('reads a rotated key again at once when the service refuses the cached one, and pings with it in the same poll', async () => {
    const ROTATED = 'GenieKey 9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d';
    parameters.putParameter('/sentinel/heartbeat-key', ROTATED);
    service.authorization = ROTATED;
    const failedPings = () =>
      output.json().filter((line) => line.message === 'external heartbeat ping failed; the poll carries on').length;
    const before = service.pings.length;
    const readsBefore = parameters.reads.length;
    const failedBefore = failedPings();

    const summary = await pollAt(poll, stepAt(31));

    expect([
      summary.claim,
      service.pings.slice(before).map((ping) => ping.headers.authorization),
      parameters.reads.length - readsBefore,
      failedPings() - failedBefore,
    ]).toEqual(['claimed', [GENIE_KEY, ROTATED], 1, 0]);
  }, 60_000);

  it('pings once when a refused key reads the same again, and reads it past the cache at most every five minutes', async () => {
    service.authorization = 'GenieKey a-key-the-service-has-not-been-given';
    const failedPings = () =>
      output.json().filter((line) => line.message === 'external heartbeat ping failed; the poll carries on').length;
    const counts = () => [service.pings.length, parameters.reads.length, failedPings()];
    const before = counts();

    // Six minutes after the last read past the cache, then one minute later.
    await pollAt(poll, stepAt(37));
    const afterFirst = counts();
    await pollAt(poll, stepAt(38));
    const afterSecond = counts();
    service.authorization = undefined;

    expect([
      afterFirst.map((n, i) => n - (before[i] ?? 0)),
      afterSecond.map((n, i) => n - (afterFirst[i] ?? 0)),
    ]).toEqual([
      [1, 1, 1],
      [1, 0, 1],
    ]);
  }, 60_000);
});
