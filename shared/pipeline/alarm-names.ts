import { SentinelError } from '../errors.ts';

/** CloudWatch's longest alarm name: https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html */
export const ALARM_NAME_MAX = 255;

/**
 * Tripwire alarms are named `<deployment>-tripwire-<cluster display name>`: the stack names them, the tripwire function
 * reads them. The display name is unique in the fleet (shared/config/cluster-identity.ts), so two clusters that share
 * an EKS name in one Region's alarms still get an alarm each.
 */
export function tripwireAlarmName(deployment: string, cluster: string): string {
  const name = `${tripwireAlarmPrefix(deployment)}${cluster}`;
  if (name.length > ALARM_NAME_MAX) {
    throw new SentinelError(
      `the tripwire alarm of cluster "${cluster}" would be named with ${name.length} characters, over CloudWatch's ${ALARM_NAME_MAX}: give the cluster a shorter "displayName", or the stack a shorter name`,
    );
  }
  return name;
}

/** What every tripwire alarm name of a deployment starts with: the rule that hears their state changes matches it. */
export function tripwireAlarmPrefix(deployment: string): string {
  return `${deployment}-tripwire-`;
}

/** The cluster a tripwire alarm of this deployment watches, or undefined for any other alarm. */
export function tripwireClusterOf(deployment: string, alarmName: string): string | undefined {
  const prefix = tripwireAlarmPrefix(deployment);
  return alarmName.startsWith(prefix) ? alarmName.slice(prefix.length) : undefined;
}
