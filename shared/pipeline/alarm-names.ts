/** Tripwire alarms are named `<deployment>-tripwire-<cluster>`: the stack names them, the tripwire function reads them. */
export function tripwireAlarmName(deployment: string, cluster: string): string {
  return `${deployment}-tripwire-${cluster}`;
}

/** The cluster a tripwire alarm of this deployment watches, or undefined for any other alarm. */
export function tripwireClusterOf(deployment: string, alarmName: string): string | undefined {
  const prefix = tripwireAlarmName(deployment, '');
  return alarmName.startsWith(prefix) ? alarmName.slice(prefix.length) : undefined;
}
