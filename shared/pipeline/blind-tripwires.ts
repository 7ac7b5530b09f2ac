import type { SignalWindow } from '../engine/signal-window.ts';

/**
 * A tripwire that cannot read its metric sees missing data, which it treats as breaching: it stays in ALARM, and its
 * cluster is read every minute at ten times the cost of the slow cadence, with nothing failing. The poll can tell:
 * an armed cluster whose write p99 (the maximum over the write verbs, at least the PATCH p99 the alarm watches) read
 * below the tripwire's threshold at every one of the last `BLIND_AFTER_STEPS` steps gives its alarm a datapoint below
 * the threshold each minute, so a tripwire that could read it would have gone back to OK. Such a tripwire is blind:
 * a cross-account alarm without its roles (docs/deploy.md, Cross-account tripwire alarms), or an alarm on a metric the
 * cluster does not publish under that name.
 */
export const BLIND_AFTER_STEPS = 10;

export function blindTripwires(
  armed: ReadonlySet<string>,
  windows: ReadonlyMap<string, SignalWindow>,
  thresholdSeconds: number,
): string[] {
  return [...armed]
    .filter((cluster) => {
      const window = windows.get(cluster);
      if (!window?.has('apiserver.write.p99')) return false;
      return Array.from({ length: BLIND_AFTER_STEPS }, (_, back) => window.sample('apiserver.write.p99', back)).every(
        (sample) => sample !== null && sample < thresholdSeconds,
      );
    })
    .sort();
}
