import { didItsJob } from '../../functions/poller/poll-on-schedule.ts';
import {
  EVENT_TIME_TOLERANCE,
  EventTimeError,
  eventTime,
  StepAheadOfClockError,
} from '../../shared/pipeline/event-time.ts';
import { memoryStores } from '../../shared/pipeline/memory-stores.ts';

const NOW = Date.parse('2026-11-23T09:00:00Z');

describe('event times', () => {
  it('accepts a time within the tolerance on either side of the clock', () => {
    const early = new Date(NOW - EVENT_TIME_TOLERANCE.behindMs).toISOString();
    const late = new Date(NOW + EVENT_TIME_TOLERANCE.aheadMs).toISOString();

    expect([eventTime('$.t', early, NOW), eventTime('$.t', late, NOW)]).toEqual([
      NOW - EVENT_TIME_TOLERANCE.behindMs,
      NOW + EVENT_TIME_TOLERANCE.aheadMs,
    ]);
  });

  it('refuses a time ahead of the tolerance, naming the field and the skew', () => {
    expect(() => eventTime('$.scheduledTime', '2026-11-23T09:05:00Z', NOW)).toThrow(
      "$.scheduledTime: 2026-11-23T09:05:00Z is 5 minutes ahead of this invocation's clock (2026-11-23T09:00:00.000Z); events are accepted from 24 hours behind to 2 minutes ahead",
    );
  });

  it('refuses a time older than the sources retry for', () => {
    expect(() => eventTime('$.scheduledTime', '2026-11-20T09:00:00Z', NOW)).toThrow(/is 3 days behind/);
  });

  it('refuses what is not a time at all', () => {
    expect(() => eventTime('$.detail.state.timestamp', 'garbage', NOW)).toThrow(EventTimeError);
  });
});

describe('the step ledger and the clock', () => {
  it('refuses to claim a step ahead of its clock', async () => {
    const { ledger } = memoryStores(() => NOW);

    await expect(ledger.claimStep(NOW + 60_000, 'a', NOW + 60_000)).rejects.toThrow(StepAheadOfClockError);
  });

  it('treats a done step ahead of the clock as void, so real steps are claimed again', async () => {
    let clock = Date.parse('2099-01-01T00:00:00Z');
    const { ledger } = memoryStores(() => clock);
    await ledger.claimStep(clock, 'wedge', clock);
    await ledger.recordStep({ at: clock, changed: [], notifications: [] }, 'wedge');
    clock = NOW;

    expect(await ledger.claimStep(NOW - 180_000, 'real', NOW + 60_000)).toBe('claimed');
  });
});

describe('a poll that did its job', () => {
  it.each([
    [
      'claimed a step and read a cluster with a sample at it',
      { claim: 'claimed', polled: ['a'], freshClusters: 1 },
      true,
    ],
    ['claimed a step on which no cluster was due', { claim: 'claimed', polled: [], freshClusters: 0 }, true],
    ['claimed a step but read only gaps', { claim: 'claimed', polled: ['a', 'b'], freshClusters: 0 }, false],
    ['found its step taken by a later one', { claim: 'stale', polled: [], freshClusters: 0 }, false],
    ['found its step done by another invocation', { claim: 'done', polled: [], freshClusters: 0 }, false],
  ] as const)('is one that %s: %p', (_what, report, didIt) => {
    expect(didItsJob(report)).toBe(didIt);
  });
});
