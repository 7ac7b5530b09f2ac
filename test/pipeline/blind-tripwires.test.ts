import { describe, expect, it } from '@jest/globals';
import { pipelineHealth } from '../../shared/digest/pipeline-health.ts';
import { SeriesWindow } from '../../shared/engine/signal-window.ts';
import { BLIND_AFTER_STEPS, blindTripwires } from '../../shared/pipeline/blind-tripwires.ts';
import { MINUTE, pollsBetween, WEEK } from '../digest/digest-fixtures.ts';

/** A cluster's window whose write p99 is `values`, oldest first, the newest at the step. */
const writes = (values: readonly (number | null)[]) =>
  new SeriesWindow({ 'apiserver.write.p99': [...values] }, 60, values.length - 1);

/** The default tripwire: write p99 of 1 s, a 5 % error share. */
const SETTINGS = { writeP99Seconds: 1, errorRatio: 0.05 };

describe('blindTripwires', () => {
  const calm = Array.from({ length: BLIND_AFTER_STEPS }, () => 0.2);

  it('names an armed cluster whose write p99 read below the threshold at every one of the last steps', () => {
    expect(blindTripwires(new Set(['dev']), new Map([['dev', writes(calm)]]), SETTINGS)).toEqual(['dev']);
  });

  it('leaves alone a cluster whose writes were slow within those steps, which the tripwire rightly watches', () => {
    const slow = [...calm.slice(1), 1.4];

    expect(blindTripwires(new Set(['dev']), new Map([['dev', writes(slow)]]), SETTINGS)).toEqual([]);
  });

  it('leaves alone a cluster whose metrics are missing: the alarm then rightly breaches', () => {
    const gap = [...calm.slice(1), null];

    expect(blindTripwires(new Set(['dev']), new Map([['dev', writes(gap)]]), SETTINGS)).toEqual([]);
  });

  it('finds nothing when the deployment has no tripwire alarms', () => {
    expect(blindTripwires(new Set(['dev']), new Map([['dev', writes(calm)]]), undefined)).toEqual([]);
  });

  it('leaves alone a cluster that no tripwire armed', () => {
    expect(blindTripwires(new Set(), new Map([['dev', writes(calm)]]), SETTINGS)).toEqual([]);
  });
});

describe('the digest’s pipeline health', () => {
  it('says which tripwires kept their clusters armed on data that read fine, and what it costs', () => {
    const polls = pollsBetween(WEEK.from, WEEK.from + 30 * MINUTE, { blindTripwires: ['dev-use1'] });
    const health = pipelineHealth({ polls, notifications: [], week: WEEK, lateMs: 30_000, wholeWeek: true });

    expect(health.degraded).toContain(
      'the tripwire of dev-use1 kept its cluster armed though its metric read fine: the alarm cannot read it',
    );
  });
});
