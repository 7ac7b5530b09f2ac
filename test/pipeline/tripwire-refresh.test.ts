import { describe, expect, it } from '@jest/globals';
import { STORE_REQUESTS_IN_FLIGHT } from '../../shared/at-most.ts';
import type { TripwireAlarmState, TripwireRecorder } from '../../shared/pipeline/ports.ts';
import { refreshTripwires } from '../../shared/pipeline/tripwire-refresh.ts';

const NOW = Date.parse('2026-01-05T12:00:00Z');

/** A recorder that answers after the others in flight have started, and keeps what it was asked to record. */
function recorder() {
  const recorded: string[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const port: TripwireRecorder = {
    record: async (cluster) => {
      inFlight++;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      recorded.push(cluster);
      return 'recorded';
    },
  };
  return { port, recorded, mostInFlight: () => mostInFlight };
}

describe('refreshTripwires', () => {
  const fleet = Array.from({ length: 10_000 }, (_, i) => `fleet-${i}`);
  const alarms = fleet.map((cluster): TripwireAlarmState => ({ cluster, state: 'ALARM', changedAt: NOW - 60_000 }));

  it('records every alarm of a fleet of 10,000 clusters, a few dozen at a time', async () => {
    const store = recorder();

    const recorded = await refreshTripwires(
      { alarms: { states: async () => alarms }, recorder: store.port },
      new Set(fleet),
      NOW,
    );

    expect([recorded, new Set(store.recorded).size, store.mostInFlight()]).toEqual([
      10_000,
      10_000,
      STORE_REQUESTS_IN_FLIGHT,
    ]);
  });

  it('records only the watched clusters', async () => {
    const store = recorder();

    await refreshTripwires(
      { alarms: { states: async () => alarms }, recorder: store.port },
      new Set(['fleet-7', 'gone']),
      NOW,
    );

    expect(store.recorded).toEqual(['fleet-7']);
  });
});
