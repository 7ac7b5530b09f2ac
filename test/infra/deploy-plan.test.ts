import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { jest } from '@jest/globals';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildSentinelApp } from '../../infra/sentinel-app.ts';
import { PROJECT_ROOT } from '../../infra/sentinel-function.ts';
import { readConfigFile } from '../../io/input-files.ts';
import { deployPlan, type PlanStep, teardownPlan } from '../../shared/config/deploy-plan.ts';
import { EXAMPLE_CONFIG, fixture, newApp } from '../../support/synth-sentinel-app.ts';
import { runSentinel } from '../support/command-output.ts';

/**
 * `sentinel deploy-plan` against what synth builds: every stack of the app is in the plan once, and no stack reads a
 * workload account's metrics before the step that links that account, creates its sharing role and the ops account's
 * service-linked role. PutMetricAlarm refuses such an alarm otherwise, and the stack rolls back.
 */

const THREE_REGIONS = fixture('three-regions.json');
const DEPLOY_DOC = readFileSync(path.join(PROJECT_ROOT, 'docs/deploy.md'), 'utf8');

let stderr: ReturnType<typeof jest.spyOn>;
const outdirs: string[] = [];
beforeAll(() => {
  stderr = jest.spyOn(console, 'error').mockImplementation(() => {});
});
afterAll(() => {
  stderr.mockRestore();
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/** The synthesized stacks by name, and the workload accounts and Region each one's alarms read metrics of. */
function synthesizedReads(file: string): Map<string, { region: string; accounts: string[] }> {
  const app = newApp({ bundle: false });
  outdirs.push(app.outdir);
  buildSentinelApp(app, { configFile: file });
  const reads = new Map<string, { region: string; accounts: string[] }>();
  for (const stack of app.node.children.filter((child): child is Stack => child instanceof Stack)) {
    const alarms = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm'));
    const accounts = alarms.flatMap((alarm) =>
      ((alarm.Properties.Metrics ?? []) as { AccountId?: string }[]).flatMap((m) => (m.AccountId ? [m.AccountId] : [])),
    );
    reads.set(stack.stackName, { region: stack.region, accounts: [...new Set(accounts)].sort() });
  }
  return reads;
}

const stepOf = (steps: readonly PlanStep[], stack: string) =>
  steps.findIndex((s) => s.stacks.some((p) => p.stack === stack));

describe.each([
  ['the example', EXAMPLE_CONFIG],
  ['three Regions and three accounts', THREE_REGIONS],
])('the deploy plan of %s', (_, file) => {
  const { config } = readConfigFile(file);
  const steps = deployPlan(config, file);
  const reads = synthesizedReads(file);
  const opsAccount = config.ops.accountId;

  it('deploys every stack synth builds, in every account that deploys it', () => {
    const planned = new Set(steps.flatMap((step) => step.stacks.map((s) => s.stack)));

    expect([...planned].sort()).toEqual([...reads.keys()].sort());
  });

  it('deploys no stack that reads a workload account’s metrics before that account’s link, role and the service-linked role', () => {
    const serviceLinkedRole = steps.findIndex((step) =>
      step.commands.some((c) => c.includes('create-service-linked-role')),
    );
    const early = [...reads.entries()].flatMap(([stack, { region, accounts }]) =>
      accounts
        .filter((account) => account !== opsAccount)
        .filter((account) => {
          const at = stepOf(steps, stack);
          const linked = steps.findIndex((s) => s.stacks.some((p) => p.links === account && p.region === region));
          const role = steps.findIndex(
            (s) =>
              s.account.kind === 'workload' &&
              s.account.id === account &&
              s.stacks.some((p) => p.stack === 'SharingRoleStack'),
          );
          return !(
            linked >= 0 &&
            linked < at &&
            role >= 0 &&
            role < at &&
            serviceLinkedRole >= 0 &&
            serviceLinkedRole < at
          );
        })
        .map((account) => `${stack} reads ${account} in ${region}`),
    );

    expect(early).toEqual([]);
    expect(reads.get('OpsStack')?.accounts).toEqual([]);
    expect([...reads.values()].some(({ accounts }) => accounts.some((account) => account !== opsAccount))).toBe(true);
  });

  it('deploys the OpsStack alone, right after bootstrapping', () => {
    const ops = steps[stepOf(steps, 'OpsStack')];

    expect(ops?.stacks.map((s) => s.stack)).toEqual(['OpsStack']);
    expect(
      steps.slice(0, stepOf(steps, 'OpsStack')).every((s) => s.commands.every((c) => c.includes('cdk bootstrap'))),
    ).toBe(true);
  });

  it('ends with the smoke test that sets one of the pipeline’s own alarms to ALARM', () => {
    expect(steps.at(-1)?.commands).toEqual([
      expect.stringMatching(/^aws cloudwatch set-alarm-state --alarm-name OpsStack-PollerErrors --state-value ALARM /),
    ]);
  });

  it('tears down the alarms first, the links before their sinks, and the OpsStack last', () => {
    const teardown = teardownPlan(config, file);
    const order = (stack: string) => stepOf(teardown, stack);
    const tripwires = [...reads.keys()].filter((name) => name.startsWith('TripwireStack'));
    const sources = [...reads.keys()].filter((name) => name.startsWith('SourceAccountStack'));
    const sinks = [...reads.keys()].filter((name) => name.startsWith('MetricsSinkStack') || name === 'OpsStack');

    expect(Math.max(...tripwires.map(order))).toBeLessThan(Math.min(...sources.map(order)));
    expect(Math.max(...sources.map(order))).toBeLessThan(Math.min(...sinks.map(order)));
    expect(order('OpsStack')).toBe(teardown.length - 1);
  });
});

describe('sentinel deploy-plan', () => {
  it('prints the numbered steps of a three-Region, three-account configuration, with profiles and Regions', async () => {
    const { code, output } = await runSentinel('deploy-plan', '--config', THREE_REGIONS);

    expect([code, output.stderrText]).toEqual([0, '']);
    expect(output.stdoutText).toContain(
      `1. Bootstrap the ops account in us-east-1\n   as: ops account 111122223333, profile ops, Region us-east-1`,
    );
    expect(output.stdoutText).toContain(
      `$ npx cdk deploy SharingRoleStack -c config=${THREE_REGIONS} --profile workload-555566667777`,
    );
    expect(output.stdoutText).toContain(
      `$ npx cdk deploy TripwireStack-eu-west-1-0 -c config=${THREE_REGIONS} --profile ops --concurrency 4`,
    );
  });

  it('refuses to run without a configuration', async () => {
    const { code, output } = await runSentinel('deploy-plan');

    expect([code, output.stderrLines[0]]).toEqual([2, 'sentinel: deploy-plan needs --config FILE']);
  });
});

describe('docs/deploy.md', () => {
  it('bootstraps with the configuration named, as the app needs to run at all', () => {
    const bootstraps = [...DEPLOY_DOC.matchAll(/npx cdk bootstrap [^\n`]*/g)].map(([line]) => line);

    expect(bootstraps.length).toBeGreaterThan(0);
    expect(bootstraps.filter((line) => !line.includes('-c config='))).toEqual([]);
  });
});
