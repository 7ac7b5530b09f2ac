import type { SignalWindow } from '../engine/signal-window.ts';
import { type TripwireSettings, tripwireBreaches, tripwireDefinition, tripwireValues } from './tripwire-alarm.ts';

/**
 * A tripwire that cannot read its metric sees missing data, which it treats as breaching: it stays in ALARM, and its
 * cluster is read every minute at ten times the cost of the slow cadence, with nothing failing. The poll can tell:
 * an armed cluster whose signals, put through the tripwire's own expression (shared/pipeline/tripwire-alarm.ts), read
 * present and below its threshold at every one of the last `BLIND_AFTER_STEPS` steps would have sent a tripwire that
 * could read them back to OK. (The write p99 the poll reads is the maximum over the write verbs, at least the PATCH
 * p99 the alarm watches, so the poll never sees a calmer cluster than the alarm.) Such a tripwire is blind:
 * a cross-account alarm without its roles (docs/deploy.md, Cross-account tripwire alarms), or an alarm on a metric the
 * cluster does not publish under that name.
 */
export const BLIND_AFTER_STEPS = 10;

export function blindTripwires(
  armed: ReadonlySet<string>,
  windows: ReadonlyMap<string, SignalWindow>,
  settings: TripwireSettings | undefined,
): string[] {
  if (!settings) return [];
  return [...armed]
    .filter((cluster) => {
      const window = windows.get(cluster);
      const definition = window && tripwireDefinition(settings, (signal) => window.has(signal));
      if (!window || !definition) return false;
      return Array.from({ length: BLIND_AFTER_STEPS }, (_, back) =>
        tripwireBreaches(
          definition,
          tripwireValues((signal) => window.sample(signal, back)),
        ),
      ).every((breaches) => !breaches);
    })
    .sort();
}
