import { describe, expect, it } from '@jest/globals';
import { STORE_REQUESTS_IN_FLIGHT } from '../../shared/at-most.ts';
import { buildPlan } from '../../shared/pipeline/build-plan.ts';
import { memoryStores } from '../../shared/pipeline/memory-stores.ts';
import { type PollDependencies, runPoll } from '../../shared/pipeline/poll.ts';
import type { TripwireAlarmState, TripwireRecorder } from '../../shared/pipeline/ports.ts';
import { refreshesTripwires, refreshTripwires } from '../../shared/pipeline/tripwire-refresh.ts';
import { isoSeconds } from '../../shared/time.ts';
import { defaultRuleSet, notificationAt } from '../support/engine-fixtures.ts';

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
    step: Partial<Pick<PollDependencies, 'metrics' | 'notifier'>> = {},
  ) {
    return runPoll(
      {
        plan,
        ...stores,
        metrics: { read: async () => ({ windows: new Map(), metricsRequested: 0, unreadable: [] }) },
        notifier: { publish: async () => ({ messageId: 'm-1' }) },
        ...step,
        tripwires: { armed: async () => ({ byAlarm: new Set(), byNodeChurn: new Set() }) },
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
