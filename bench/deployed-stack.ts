import * as path from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import type { SentinelFunction } from '../infra/sentinel-function.ts';
import {
  alarmMetrics,
  isTripwireAlarm,
  type TemplateResource,
  templateResources,
} from '../support/resource-pricing.ts';
import { EXAMPLE_CONFIG, synthSentinelApp } from '../support/synth-sentinel-app.ts';

export interface DeployedFunction {
  /** The bundle as CDK staged it for upload: `index.mjs`, its source map and `sentinel.config.json`. */
  readonly bundleDir: string;
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  /** The environment the stack sets, with a stand-in for each resource name that is a token until deploy. */
  readonly environment: Readonly<Record<string, string>>;
}

/** What the synthesized OpsStack holds that the cost model and the bundle measurements need. */
export interface DeployedStack {
  readonly configFile: string;
  readonly poller: DeployedFunction;
  readonly digest: DeployedFunction;
  readonly tripwire: DeployedFunction;
  /** The PagerDuty and Opsgenie delivery, when the configuration names an integration. */
  readonly delivery?: DeployedFunction;
  /** The shard worker, when the fleet is larger than one shard (infra/shard-workers.ts). */
  readonly shardWorker?: DeployedFunction;
  /** Every resource of every stack of the app (ops, sinks, workload accounts): what the cost model prices. */
  readonly resources: readonly TemplateResource[];
  /** The alarm metrics of the tripwire alarms (one per cluster), which is what CloudWatch bills. */
  readonly tripwireAlarmMetrics: number;
  /** The poll schedule's expression, e.g. `rate(1 minute)`. */
  readonly pollSchedule: string;
  readonly dispose: () => void;
}

interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
}

/**
 * Synthesize the app for the example configuration with bundling on, as `cdk deploy` would: the bundles measured
 * here are the ones CDK uploads, built by infra/sentinel-function.ts with the locally installed esbuild.
 */
export function synthesizeDeployedStack(configFile: string = EXAMPLE_CONFIG): DeployedStack {
  const synth = synthSentinelApp({ configFile, credentials: {} });
  const template = synth.assembly.getStackByName(synth.ops.stackName).template as {
    Resources: Record<string, CfnResource>;
  };
  const resources = Object.values(template.Resources);
  const deployed = (fn: SentinelFunction): DeployedFunction => {
    const logicalId = synth.ops.resolve((fn.function.node.defaultChild as CfnElement).logicalId) as string;
    const properties = template.Resources[logicalId]?.Properties as {
      Code: { S3Key: string };
      MemorySize: number;
      Timeout: number;
      Environment: { Variables: Record<string, unknown> };
    };
    return {
      bundleDir: path.join(synth.assembly.directory, `asset.${properties.Code.S3Key.replace('.zip', '')}`),
      memoryMb: properties.MemorySize,
      timeoutSeconds: properties.Timeout,
      environment: Object.fromEntries(
        Object.entries(properties.Environment.Variables).map(([name, value]) => [
          name,
          typeof value === 'string' ? value : `arn:aws:bench:us-east-1:000000000000:${name.toLowerCase()}`,
        ]),
      ),
    };
  };
  const everyResource = templateResources(synth.assembly.stacks);
  const tripwires = everyResource.filter((r) => r.type === 'AWS::CloudWatch::Alarm' && isTripwireAlarm(r));
  const pollSchedule = resources.find(
    (r) => r.Type === 'AWS::Scheduler::Schedule' && String(r.Properties?.ScheduleExpression).startsWith('rate('),
  );
  return {
    configFile,
    poller: deployed(synth.ops.poller),
    digest: deployed(synth.ops.digest),
    tripwire: deployed(synth.ops.tripwire),
    ...(synth.ops.delivery && { delivery: deployed(synth.ops.delivery.function) }),
    ...(synth.ops.shardWorkers && { shardWorker: deployed(synth.ops.shardWorkers.function) }),
    resources: everyResource,
    tripwireAlarmMetrics: tripwires.reduce((n, a) => n + alarmMetrics(a), 0),
    pollSchedule: String(pollSchedule?.Properties?.ScheduleExpression ?? 'none'),
    dispose: synth.dispose,
  };
}
