import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { CfnAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { type TemplateFootprint, templateFootprint } from '../infra/deployment-quotas.ts';
import { buildSentinelApp, type SentinelStacks } from '../infra/sentinel-app.ts';
import { newApp } from './synth-sentinel-app.ts';

/** The ops account and Region of every generated fleet. */
export const FLEET_OPS = { accountId: '100000000000', region: 'us-east-1' } as const;
/** The Regions a generated fleet spreads over, the ops Region first. */
export const FLEET_REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;
/** Accounts a generated fleet spreads over: the ops account and 19 workload accounts. */
export const FLEET_ACCOUNTS = 20;

export interface GeneratedFleet {
  readonly file: string;
  readonly config: object;
  readonly dispose: () => void;
}

/** The account of cluster `index`: the ops account for every twentieth, else one of the 19 workload accounts. */
export const fleetAccount = (index: number): string =>
  index % FLEET_ACCOUNTS === 0 ? FLEET_OPS.accountId : String(200000000000 + (index % FLEET_ACCOUNTS));

/**
 * A deployment configuration of `size` EKS clusters dealt over three Regions and twenty accounts, as a platform team
 * with one cluster per team, stage and Region has them, written to a temporary file for synth.
 */
export function generatedFleet(size: number): GeneratedFleet {
  const clusters = Array.from({ length: size }, (_, index) => ({
    name: `team-${String(Math.floor(index / 3)).padStart(4, '0')}-prod-${FLEET_REGIONS[index % FLEET_REGIONS.length]}`,
    accountId: fleetAccount(index),
    region: FLEET_REGIONS[index % FLEET_REGIONS.length],
    source: { nodeGroups: [`ng-${index}-general`] },
  }));
  const config = {
    ops: FLEET_OPS,
    clusters,
    subscriptions: { paging: [{ subscribers: [{ protocol: 'email', endpoint: 'oncall@example.com' }] }] },
    digest: { recipients: ['sre@example.com'] },
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'sentinel-fleet-'));
  const file = path.join(dir, `fleet-${size}.json`);
  writeFileSync(file, JSON.stringify(config));
  return { file, config, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface SynthesizedFleet {
  readonly stacks: SentinelStacks;
  /** Every stack's footprint, as CloudFormation's and EventBridge's quotas count it. */
  readonly footprints: readonly TemplateFootprint[];
  /** The tripwire alarms by name, with the account and Region of the stack that holds each. */
  readonly tripwireAlarms: ReadonlyMap<string, { readonly account: string; readonly region: string }>;
  readonly synthMs: number;
}

/** Synthesize the whole app for a generated fleet of `size` clusters, as `cdk synth` would, bundling left out. */
export function synthesizeFleet(size: number): SynthesizedFleet {
  const fleet = generatedFleet(size);
  const app = newApp({ bundle: false });
  try {
    const started = performance.now();
    const stacks = buildSentinelApp(app, { configFile: fleet.file });
    const assembly = app.synth();
    const synthMs = performance.now() - started;
    const footprints = assembly.stacks.map((artifact) =>
      templateFootprint(
        artifact.stackName,
        artifact.template,
        statSync(path.join(assembly.directory, artifact.templateFile)).size,
      ),
    );
    const tripwireAlarms = new Map<string, { account: string; region: string }>();
    for (const stack of stacks.tripwires) {
      for (const alarm of stack.tripwires.alarms) {
        const name = (alarm.node.defaultChild as CfnAlarm).alarmName as string;
        tripwireAlarms.set(name, { account: stack.account, region: stack.region });
      }
    }
    return { stacks, footprints, tripwireAlarms, synthMs };
  } finally {
    rmSync(app.outdir, { recursive: true, force: true });
    fleet.dispose();
  }
}
