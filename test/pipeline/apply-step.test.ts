import { describe, expect, it } from '@jest/globals';
import { batchesEndingBy } from '../../shared/pipeline/apply-step.ts';

describe('batchesEndingBy', () => {
  it('stops before the batch that, as long as the longest one so far (not the last), would end after the deadline', () => {
    const times = [0, 4, 5, 7];
    let at = 0;
    const inTime = batchesEndingBy(10, () => at);

    const answers = times.map((time) => {
      at = time;
      return inTime();
    });

    expect(answers).toEqual([true, true, true, false]);
  });

  it('starts a first batch whenever there is time left, and none once the deadline has come', () => {
    expect([batchesEndingBy(10, () => 9.9)(), batchesEndingBy(10, () => 10)()]).toEqual([true, false]);
  });
});
