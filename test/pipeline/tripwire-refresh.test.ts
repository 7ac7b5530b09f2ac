import { describe, expect, it } from '@jest/globals';
import { STORE_REQUESTS_IN_FLIGHT } from '../../shared/at-most.ts';
import { buildPlan } from '../../shared/pipeline/build-plan.ts';
import { memoryStores } from '../../shared/pipeline/memory-stores.ts';
import { type PollDependencies, runPoll } from '../../shared/pipeline/poll.ts';
import type { RecordedTripwireState, TripwireAlarmState, TripwireRecorder } from '../../shared/pipeline/ports.ts';
import { refreshesTripwires, refreshTripwires } from '../../shared/pipeline/tripwire-refresh.ts';
import { tripwireRenewalWindowMs, tripwireStateExpiresAt } from '../../shared/pipeline/tripwire-state.ts';
import { DAY_MS, HOUR_MS, isoSeconds, MINUTE_MS } from '../../shared/time.ts';
import { defaultRuleSet, notificationAt } from '../support/engine-fixtures.ts';

const NOW = Date.parse('2026-01-05T12:00:00Z');

/** The default slow cycle, 20 minutes. */
const CYCLE_MS = 20 * MINUTE_MS;

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
  const changedAt = NOW - 60_000;
  const alarms = fleet.map((cluster): TripwireAlarmState => ({ cluster, state: 'ALARM', changedAt }));
  /** Every alarm's state as its event recorded it, a few seconds after the change. */
  const recordedByEvents = new Map(
    fleet.map((cluster) => [
      cluster,
      { state: 'ALARM', changedAt, expiresAt: tripwireStateExpiresAt(changedAt, changedAt + 5_000) },
    ]),
  );

  it('records every alarm of a fleet of 10,000 clusters whose store says nothing, a few dozen at a time', async () => {
    const store = recorder();

    const outcome = await refreshTripwires(
      { alarms: { states: async () => alarms }, recorder: store.port },
      { clusters: new Set(fleet), cycleMs: CYCLE_MS },
      NOW,
    );

    expect([outcome, new Set(store.recorded).size, store.mostInFlight()]).toEqual([
      { states: 10_000, written: 10_000, recorded: 10_000 },
      10_000,
      STORE_REQUESTS_IN_FLIGHT,
    ]);
  });

  it('records only the watched clusters', async () => {
    const store = recorder();

    await refreshTripwires(
      { alarms: { states: async () => alarms }, recorder: store.port },
      { clusters: new Set(['fleet-7', 'gone']), cycleMs: CYCLE_MS },
      NOW,
    );

    expect(store.recorded).toEqual(['fleet-7']);
  });

  it('writes nothing for a fleet of 10,000 whose states are recorded as CloudWatch holds them', async () => {
    const store = recorder();

    const outcome = await refreshTripwires(
      { alarms: { states: async () => alarms }, recorder: store.port },
      { clusters: new Set(fleet), recorded: recordedByEvents, cycleMs: CYCLE_MS },
      NOW,
    );

    expect([outcome, store.recorded]).toEqual([{ states: 10_000, written: 0, recorded: 0 }, []]);
  });

  it('writes the states that changed, were never recorded, or are near their expiry, and no other', async () => {
    const store = recorder();
    const recorded = new Map<string, RecordedTripwireState>(recordedByEvents);
    recorded.set('fleet-1', { state: 'OK', changedAt: changedAt - HOUR_MS, expiresAt: NOW + DAY_MS });
    recorded.set('fleet-2', { state: 'ALARM', changedAt: changedAt - HOUR_MS, expiresAt: NOW + DAY_MS });
    recorded.delete('fleet-3');
    recorded.set('fleet-4', { state: 'ALARM', changedAt, expiresAt: NOW + tripwireRenewalWindowMs(CYCLE_MS) });
    recorded.set('fleet-5', { state: 'ALARM', changedAt, expiresAt: NOW + tripwireRenewalWindowMs(CYCLE_MS) + 1000 });
    recorded.set('fleet-6', { state: 'ALARM', expiresAt: NOW + DAY_MS });

    const outcome = await refreshTripwires(
      { alarms: { states: async () => alarms }, recorder: store.port },
      { clusters: new Set(fleet), recorded, cycleMs: CYCLE_MS },
      NOW,
    );

    expect([outcome.written, store.recorded.sort()]).toEqual([
      5,
      ['fleet-1', 'fleet-2', 'fleet-3', 'fleet-4', 'fleet-6'],
    ]);
  });
});

describe('the refresh in a poll', () => {
  const plan = buildPlan({ ruleSet: defaultRuleSet(), clusters: ['a'], maintenance: [], stepSeconds: 60 });
  /** A step that opens a slow cycle. */
  const at = Math.ceil(NOW / (plan.cadence.everySteps * 60_000)) * plan.cadence.everySteps * 60_000;

  /**
   * The poll of that step, over `stores`, with a refresh whose CloudWatch answers once `answered` settles: the alarm of
   * cluster `a` in ALARM, each record noted in `order`.
   */
  function pollWithRefresh(
    stores: ReturnType<typeof memoryStores>,
    order: string[],
    answered: () => Promise<unknown>,
    step: Partial<Pick<PollDependencies, 'metrics' | 'notifier' | 'tripwires'>> = {},
  ) {
    return runPoll(
      {
        plan,
        ...stores,
        metrics: { read: async () => ({ windows: new Map(), metricsRequested: 0, unreadable: [] }) },
        notifier: { publish: async () => ({ messageId: 'm-1' }) },
        tripwires: { armed: async () => ({ byAlarm: new Set(), byNodeChurn: new Set() }) },
        ...step,
        tripwireRefresh: {
          alarms: {
            states: async () => {
              order.push('refresh started');
              await answered();
              return [{ cluster: 'a', state: 'ALARM', changedAt: at - 60_000 }];
            },
          },
          recorder: {
            record: async () => {
              order.push('refreshed');
              return 'recorded';
            },
          },
        },
        owner: 'test',
        now: () => at,
        leaseMs: 60_000,
      },
      at,
    );
  }

  it('runs beside the step, and is awaited only once the step is read and its outbox delivered', async () => {
    const order: string[] = [];
    let publish: () => void = () => {};
    const published = new Promise<void>((resolve) => {
      publish = resolve;
    });
    const stores = memoryStores(() => at);
    await stores.outbox.enqueue([notificationAt({ at: isoSeconds(at), kind: 'page', rule: 'webhook-blackhole' })]);

    // A refresh slower than the step: CloudWatch answers once the step's page is out, or after a second.
    const report = await pollWithRefresh(
      stores,
      order,
      () => Promise.race([published, new Promise((resolve) => setTimeout(resolve, 1000).unref())]),
      {
        metrics: {
          read: async () => {
            order.push('step read');
            return { windows: new Map(), metricsRequested: 0, unreadable: [] };
          },
        },
        notifier: {
          publish: async () => {
            order.push('published');
            publish();
            return { messageId: 'm-1' };
          },
        },
      },
    );

    expect(refreshesTripwires(plan, at)).toBe(true);
    expect(order).toEqual(['refresh started', 'step read', 'published', 'refreshed']);
    expect([report.claim, report.delivered.length, report.tripwireRefreshFailure]).toEqual(['claimed', 1, undefined]);
  });

  it('compares the alarms with the states its step read, and writes none that the table already holds', async () => {
    const order: string[] = [];
    const recorded = new Map([
      ['a', { state: 'ALARM', changedAt: at - 60_000, expiresAt: tripwireStateExpiresAt(at - 60_000, at) }],
    ]);

    await pollWithRefresh(
      memoryStores(() => at),
      order,
      async () => undefined,
      {
        tripwires: { armed: async () => ({ byAlarm: new Set(['a']), byNodeChurn: new Set(), recorded }) },
      },
    );

    expect(order).toEqual(['refresh started']);
  });

  it('is awaited when the delivery throws too, so that no refresh outlives the poll that started it', async () => {
    const order: string[] = [];
    const stores = memoryStores(() => at);
    stores.outbox.pending = async () => {
      order.push('delivery failed');
      throw new Error('the outbox could not be read');
    };

    const poll = pollWithRefresh(stores, order, () => new Promise((resolve) => setTimeout(resolve, 50)));

    await expect(poll).rejects.toThrow('the outbox could not be read');
    // Tried as soon as the step's notifications are queued, and once more after the step is written.
    expect(order).toEqual(['refresh started', 'delivery failed', 'delivery failed', 'refreshed']);
  });
});
