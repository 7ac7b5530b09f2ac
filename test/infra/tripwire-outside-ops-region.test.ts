import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { jest } from '@jest/globals';
import type { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { buildSentinelApp } from '../../infra/sentinel-app.ts';
import { readConfigFile, readScenarioFile } from '../../io/input-files.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import { fixture, newApp } from '../../support/synth-sentinel-app.ts';
import { scenarioFile } from '../support/engine-fixtures.ts';

/**
 * The OPA webhook outage on a workload account's cluster in eu-west-1, with the ops stack in us-east-1: replay with
 * that configuration pages within three minutes because the cluster's tripwire arms the minute reads, and the
 * synthesized deployment has that tripwire, in eu-west-1, where an alarm can watch the cluster's metrics.
 */

const CONFIG = fixture('opa-outside-ops-region.json');
/** When the webhook's backend stopped answering (test/scenario/opa-webhook-outage.test.ts). */
const ONSET = Date.parse('2019-03-04T09:30:00Z');

let stderr: ReturnType<typeof jest.spyOn>;
const dirs: string[] = [];
beforeAll(() => {
  stderr = jest.spyOn(console, 'error').mockImplementation(() => {});
});
afterAll(() => {
  stderr.mockRestore();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function firstPage(configFile: string): Promise<number | undefined> {
  const { config, ruleSet } = readConfigFile(configFile);
  const result = await replayScenario(readScenarioFile(scenarioFile('opa-webhook-outage')), { ruleSet, config });
  const page = result.notifications.find((n) => n.kind === 'page');
  return page && Date.parse(page.at);
}

describe('a cluster outside the ops Region', () => {
  it('pages the OPA webhook outage within 3 minutes in replay with its configuration', async () => {
    const at = await firstPage(CONFIG);

    expect((at ?? Number.POSITIVE_INFINITY) - ONSET).toBeLessThanOrEqual(3 * 60_000);
  });

  it('has, in the synthesized deployment, the tripwire that makes that true: in its own Region, in the ops account', () => {
    const app = newApp({ bundle: false });
    dirs.push(app.outdir);
    const { tripwires } = buildSentinelApp(app, { configFile: CONFIG });

    const placed = tripwires.flatMap((stack) =>
      stack.tripwires.alarms.map((alarm) => [
        (alarm.node.defaultChild as CfnAlarm).alarmName,
        stack.account,
        stack.region,
      ]),
    );

    expect(placed).toEqual([['OpsStack-tripwire-dev-euw1', '111122223333', 'eu-west-1']]);
  });

  it('replays without a tripwire when the deployment would give it none, and then pages later', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sentinel-no-tripwire-'));
    dirs.push(dir);
    const file = path.join(dir, 'no-tripwire.json');
    const { config } = readConfigFile(CONFIG);
    writeFileSync(
      file,
      JSON.stringify({
        ops: config.ops,
        // Only node counts: no metric any leg of the tripwire reads, so synth gives the cluster no alarm.
        clusters: [
          {
            name: 'dev-euw1',
            accountId: '222233334444',
            region: 'eu-west-1',
            source: {
              profile: 'custom',
              custom: {
                'nodes.total': {
                  namespace: 'Fleet',
                  metricName: 'nodes',
                  dimensions: { cluster: 'dev-euw1' },
                  stat: 'Average',
                },
              },
            },
          },
        ],
        subscriptions: { paging: [{ subscribers: [{ protocol: 'email', endpoint: 'oncall@example.com' }] }] },
        digest: { recipients: ['sre@example.com'] },
      }),
    );

    const app = newApp({ bundle: false });
    dirs.push(app.outdir);
    const { tripwires } = buildSentinelApp(app, { configFile: file });

    const at = await firstPage(file);

    expect(tripwires).toEqual([]);
    expect((at ?? Number.POSITIVE_INFINITY) - ONSET).toBeGreaterThan(3 * 60_000);
  });
});
