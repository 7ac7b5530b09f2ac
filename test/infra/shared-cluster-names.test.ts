import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { jest } from '@jest/globals';
import type { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { buildSentinelApp } from '../../infra/sentinel-app.ts';
import { tripwireAlarmName, tripwireClusterOf } from '../../shared/pipeline/alarm-names.ts';
import { newApp } from '../../support/synth-sentinel-app.ts';

/**
 * Two clusters named `main` in two workload accounts of one Region: the synthesized deployment gives each its own
 * tripwire alarm, in one stack of that Region, named by its display name, which the tripwire function reads back.
 */
const dirs: string[] = [];
let stderr: ReturnType<typeof jest.spyOn>;
beforeAll(() => {
  stderr = jest.spyOn(console, 'error').mockImplementation(() => {});
});
afterAll(() => {
  stderr.mockRestore();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function configFile(config: object): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'sentinel-names-'));
  dirs.push(dir);
  const file = path.join(dir, 'sentinel.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

describe('tripwire alarms of clusters that share a name', () => {
  it('are one per cluster, named by display name, and lead back to their cluster', () => {
    const app = newApp({ bundle: false });
    dirs.push(app.outdir);
    const { tripwires } = buildSentinelApp(app, {
      configFile: configFile({
        ops: { accountId: '111122223333', region: 'eu-west-1' },
        clusters: [
          { name: 'main', accountId: '222233334444', region: 'eu-west-1' },
          { name: 'main', accountId: '444455556666', region: 'eu-west-1' },
        ],
        subscriptions: { paging: [{ subscribers: [{ protocol: 'email', endpoint: 'oncall@example.com' }] }] },
        digest: { recipients: ['sre@example.com'] },
      }),
    });

    const names = tripwires.flatMap((stack) =>
      stack.tripwires.alarms.map((alarm) => (alarm.node.defaultChild as CfnAlarm).alarmName ?? ''),
    );

    expect(names).toEqual([
      'OpsStack-tripwire-main@222233334444/eu-west-1',
      'OpsStack-tripwire-main@444455556666/eu-west-1',
    ]);
    expect(names.map((name) => tripwireClusterOf('OpsStack', name))).toEqual([
      'main@222233334444/eu-west-1',
      'main@444455556666/eu-west-1',
    ]);
  });

  it('refuses a name past CloudWatch’s 255 characters, saying what to shorten', () => {
    expect(tripwireAlarmName('x'.repeat(117), 'm'.repeat(128))).toHaveLength(255);
    expect(() => tripwireAlarmName('x'.repeat(118), 'm'.repeat(128))).toThrow(
      'over CloudWatch\'s 255: give the cluster a shorter "displayName", or the stack a shorter name',
    );
  });
});
