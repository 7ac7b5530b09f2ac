import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  itemWriteUnits,
  PARTITION_WRITE_UNITS_PER_SECOND,
  type PacingClock,
  PartitionWritePacers,
} from '../../aws/dynamodb/partition-pacing.ts';

/** A clock that moves only when a write waits, and a log of when each write was let through. */
function steppedClock(): PacingClock & { at: number } {
  const clock = {
    at: 0,
    now: () => clock.at,
    wait: async (ms: number) => {
      clock.at += ms;
    },
  };
  return clock;
}

/** The most units any one partition was sent in a sliding second. */
function busiestSecond(sent: readonly { at: number; partition: string; units: number }[]): number {
  let most = 0;
  for (const start of sent) {
    const inSecond = sent.filter((s) => s.partition === start.partition && s.at >= start.at && s.at < start.at + 1000);
    most = Math.max(
      most,
      inSecond.reduce((sum, s) => sum + s.units, 0),
    );
  }
  return most;
}

describe('the write pace of a partition', () => {
  it('never sends a partition more than its line in any one second, whatever the writes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            partitions: fc.subarray(['OPEN', 'INCIDENT', 'byDay:INCIDENT#2026-11-27'], { minLength: 1 }),
            units: fc.integer({ min: 1, max: 40 }),
            gapMs: fc.integer({ min: 0, max: 20 }),
          }),
          { minLength: 100, maxLength: 400 },
        ),
        async (writes) => {
          const clock = steppedClock();
          const pacers = new PartitionWritePacers(PARTITION_WRITE_UNITS_PER_SECOND, clock);
          const sent: { at: number; partition: string; units: number }[] = [];
          for (const write of writes) {
            clock.at += write.gapMs;
            await pacers.reserve(write.partitions, write.units);
            for (const partition of write.partitions) sent.push({ at: clock.at, partition, units: write.units });
          }
          expect(busiestSecond(sent)).toBeLessThanOrEqual(PARTITION_WRITE_UNITS_PER_SECOND);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps a fleet outage of 10,000 open incidents at four fifths of the line, and holds no other partition', async () => {
    const clock = steppedClock();
    const pacers = new PartitionWritePacers(PARTITION_WRITE_UNITS_PER_SECOND, clock);
    for (let i = 0; i < 10_000; i++) await pacers.reserve(['OPEN'], 2);
    const openDoneAt = clock.at;
    await pacers.reserve(['INCIDENT'], 2);

    // 20,000 units at 800 a second, less the first burst.
    expect([Math.round(openDoneAt / 1000), clock.at]).toEqual([25, openDoneAt]);
  });

  it('counts an item’s write units a kilobyte each, rounded up, never fewer than one', () => {
    expect([
      itemWriteUnits({ pk: 'OPEN' }),
      itemWriteUnits({ text: 'x'.repeat(1024) }),
      itemWriteUnits({ text: 'é'.repeat(1024) }),
    ]).toEqual([1, 2, 3]);
  });
});
