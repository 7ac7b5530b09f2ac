import { costModel, estimateCost } from '../../shared/digest/cost-model.ts';

const WEEK_MS = 7 * 86_400_000;

describe('estimateCost', () => {
  it('prices the tripwire alarms per alarm metric, pro rata over the period', () => {
    const cost = estimateCost([], costModel(512), { alarmMetrics: 10, periodMs: WEEK_MS });

    expect([cost.alarmUsd, cost.totalUsd]).toEqual([expect.closeTo((10 * 0.1 * 7) / 30), expect.closeTo(0.2333)]);
  });

  it('adds the reads, the runs and the alarms', () => {
    const cost = estimateCost([{ metricsRequested: 100_000, durationMs: 0 }], costModel(512), {
      alarmMetrics: 5,
      periodMs: WEEK_MS,
    });

    expect(cost.totalUsd).toBeCloseTo(1 + 0.000_000_2 + (5 * 0.1 * 7) / 30);
  });
});
