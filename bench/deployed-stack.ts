import * as path from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import type { SentinelFunction } from '../infra/sentinel-function.ts';
import { EXAMPLE_CONFIG, synthSentinelApp } from '../test/infra/synth-sentinel-app.ts';

export interface DeployedFunction {
  /** The bundle as CDK staged it for upload: `index.mjs`, its source map and `sentinel.config.json`. */
  readonly bundleDir: string;
  readonly memoryMb: number;
  /** Active X-Ray tracing: every invocation at one a minute is a trace recorded. */
  readonly traced: boolean;
  /** The environment the stack sets, with a stand-in for each resource name that is a token until deploy. */
  readonly environment: Readonly<Record<string, string>>;
}

/** What the synthesized OpsStack holds that the cost model and the bundle measurements need. */
export interface DeployedStack {
  readonly configFile: string;
  readonly poller: DeployedFunction;
  readonly digest: DeployedFunction;
  /** Tripwire alarms (one per cluster) and the alarm metrics they read, which is what CloudWatch bills. */
  readonly tripwireAlarms: number;
  readonly tripwireAlarmMetrics: number;
  /** The pipeline's own alarm metrics, whatever the fleet size. */
  readonly pipelineAlarmMetrics: number;
  readonly dashboards: number;
  readonly keys: number;
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
export function synthesizeDeployedStack(): DeployedStack {
  const synth = synthSentinelApp({ configFile: EXAMPLE_CONFIG, opsEnv: {} });
  const template = synth.assembly.getStackByName(synth.ops.stackName).template as {
    Resources: Record<string, CfnResource>;
  };
  const resources = Object.values(template.Resources);
  const deployed = (fn: SentinelFunction): DeployedFunction => {
    const logicalId = synth.ops.resolve((fn.function.node.defaultChild as CfnElement).logicalId) as string;
    const properties = template.Resources[logicalId]?.Properties as {
      Code: { S3Key: string };
      MemorySize: number;
      TracingConfig?: { Mode: string };
      Environment: { Variables: Record<string, unknown> };
    };
    return {
      bundleDir: path.join(synth.assembly.directory, `asset.${properties.Code.S3Key.replace('.zip', '')}`),
      memoryMb: properties.MemorySize,
      traced: properties.TracingConfig?.Mode === 'Active',
      environment: Object.fromEntries(
        Object.entries(properties.Environment.Variables).map(([name, value]) => [
          name,
          typeof value === 'string' ? value : `arn:aws:bench:us-east-1:000000000000:${name.toLowerCase()}`,
        ]),
      ),
    };
  };
  const alarms = resources.filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
  const isTripwire = (alarm: CfnResource) => String(alarm.Properties?.AlarmName ?? '').includes('-tripwire-');
  // A metric alarm is billed per metric it references ("Analyzing, optimizing, and reducing CloudWatch costs":
  // https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_billing.html).
  const alarmMetrics = (alarm: CfnResource) =>
    Array.isArray(alarm.Properties?.Metrics)
      ? (alarm.Properties.Metrics as { MetricStat?: unknown }[]).filter((m) => m.MetricStat).length
      : 1;
  const pollSchedule = resources.find(
    (r) => r.Type === 'AWS::Scheduler::Schedule' && String(r.Properties?.ScheduleExpression).startsWith('rate('),
  );
  return {
    configFile: EXAMPLE_CONFIG,
    poller: deployed(synth.ops.poller),
    digest: deployed(synth.ops.digest),
    tripwireAlarms: alarms.filter(isTripwire).length,
    tripwireAlarmMetrics: alarms.filter(isTripwire).reduce((n, a) => n + alarmMetrics(a), 0),
    pipelineAlarmMetrics: alarms.filter((a) => !isTripwire(a)).reduce((n, a) => n + alarmMetrics(a), 0),
    dashboards: resources.filter((r) => r.Type === 'AWS::CloudWatch::Dashboard').length,
    keys: resources.filter((r) => r.Type === 'AWS::KMS::Key').length,
    pollSchedule: String(pollSchedule?.Properties?.ScheduleExpression ?? 'none'),
    dispose: synth.dispose,
  };
}
