import { type ClusterConfig, deploymentConfigSchema } from '../../shared/config/deployment-config.ts';
import type { Sample, SignalName } from '../../shared/engine/signals.ts';
import {
  alarmInAlarm,
  evaluateTripwireExpression,
  renderTripwireExpression,
  type TripwireMetricId,
  tripwireAlarmMetrics,
  tripwireBreaches,
  tripwireDefinition,
  tripwireStates,
  tripwireValues,
} from '../../shared/pipeline/tripwire-alarm.ts';

const SETTINGS = { writeP99Seconds: 1, errorRatio: 0.05 };
const EVERY_SIGNAL = () => true;

/** The stock EKS tripwire, and whether one minute of these values breaches it (a missing value is null). */
const breaches = (values: Partial<Record<SignalName, Sample>>) => {
  const definition = tripwireDefinition(SETTINGS, EVERY_SIGNAL);
  if (!definition) throw new Error('no tripwire');
  return tripwireBreaches(
    definition,
    tripwireValues((signal) => values[signal] ?? null),
  );
};
const quiet = { 'apiserver.write.p99': 0.2, 'apiserver.requests': 3000, 'apiserver.5xx': 2, 'apiserver.429': 0 };

describe('tripwireDefinition', () => {
  it('watches writes, the error share, webhook calling errors and NotReady nodes on a stock EKS cluster', () => {
    expect(tripwireDefinition(SETTINGS, EVERY_SIGNAL)?.legs.map((leg) => leg.name)).toEqual([
      'write latency',
      'error share',
      'webhook calling errors',
      'nodes NotReady',
    ]);
  });

  it('reads six metrics, each once, whatever the number of legs that use it', () => {
    expect(tripwireDefinition(SETTINGS, EVERY_SIGNAL)?.metrics).toEqual([
      'write',
      'requests',
      'errors',
      'shed',
      'rejections',
      'notReady',
    ]);
  });

  it('leaves the 429 out of the error share of a cluster that has no 429 series', () => {
    const definition = tripwireDefinition(
      SETTINGS,
      (signal) => signal !== 'apiserver.429' && !signal.startsWith('nodes.'),
    );

    expect(definition && renderTripwireExpression(definition.expression)).toBe(
      '((write >= 1) OR ((requests >= 50) AND (errors >= (0.05 * requests))) OR ((rejections >= 10) AND (errors >= (0.5 * rejections))))',
    );
  });

  it('has only the write leg for a cluster that provides only a write p99', () => {
    const definition = tripwireDefinition(SETTINGS, (signal) => signal === 'apiserver.write.p99');

    expect(definition && renderTripwireExpression(definition.expression)).toBe('(write >= 1)');
  });

  it('has only the NotReady leg for a cluster that provides only node counts', () => {
    const definition = tripwireDefinition(
      SETTINGS,
      (signal) => signal === 'nodes.total' || signal === 'nodes.notready',
    );

    expect(definition && renderTripwireExpression(definition.expression)).toBe('(notReady >= 3)');
  });

  it('is none for a cluster that provides nothing a leg needs', () => {
    expect(tripwireDefinition(SETTINGS, (signal) => signal.startsWith('webhook.failures'))).toBeUndefined();
  });
});

describe('tripwireBreaches', () => {
  it('stays quiet on a healthy minute', () => {
    expect(breaches(quiet)).toBe(false);
  });

  it('arms on a slow write', () => {
    expect(breaches({ ...quiet, 'apiserver.write.p99': 1.2 })).toBe(true);
  });

  it('arms on 429 shedding with fast writes', () => {
    expect(breaches({ ...quiet, 'apiserver.429': 200 })).toBe(true);
  });

  it('arms on a 5xx storm on a cluster that publishes no 429', () => {
    expect(breaches({ ...quiet, 'apiserver.429': null, 'apiserver.5xx': 300 })).toBe(true);
  });

  it('does not judge a share on too few requests', () => {
    expect(breaches({ ...quiet, 'apiserver.requests': 20, 'apiserver.5xx': 10 })).toBe(false);
  });

  it('arms when a webhook fails closed on a small share of the traffic: rejections that answer 500', () => {
    expect(breaches({ ...quiet, 'apiserver.5xx': 40, 'webhook.rejections': 40 })).toBe(true);
  });

  it('stays quiet when a policy denies requests on purpose: rejections without 5xx', () => {
    expect(breaches({ ...quiet, 'webhook.rejections': 400 })).toBe(false);
  });

  it('arms from three NotReady nodes, whatever their share, and not below', () => {
    expect([
      breaches({ ...quiet, 'nodes.total': 60, 'nodes.notready': 30 }),
      breaches({ ...quiet, 'nodes.total': 600, 'nodes.notready': 3 }),
      breaches({ ...quiet, 'nodes.total': 4, 'nodes.notready': 2 }),
      breaches({ ...quiet, 'nodes.total': 4, 'nodes.notready': 3 }),
    ]).toEqual([true, true, false, true]);
  });

  it('arms on every minute the NotReady rule could page on: half of the nodes, three at least', () => {
    const minutes = [3, 4, 10, 60, 600].flatMap((nodes) =>
      [Math.max(3, Math.ceil(nodes / 2)), nodes].map((notReady) => ({ nodes, notReady })),
    );
    expect(
      minutes.filter(
        ({ nodes, notReady }) => !breaches({ ...quiet, 'nodes.total': nodes, 'nodes.notready': notReady }),
      ),
    ).toEqual([]);
  });

  it('breaches when no metric has a datapoint: missing data is breaching', () => {
    expect(breaches({})).toBe(true);
  });

  it('treats one missing metric as 0, as metric math does, when others have data', () => {
    expect(breaches({ ...quiet, 'apiserver.write.p99': null })).toBe(false);
  });
});

describe('evaluateTripwireExpression', () => {
  const at = (values: Partial<Record<TripwireMetricId, number>>) => (id: TripwireMetricId) => values[id] ?? null;

  it('adds, multiplies and compares to 0 or 1', () => {
    const expression = {
      op: '>=' as const,
      of: [
        { op: '+' as const, of: [{ metric: 'errors' as const }, { metric: 'shed' as const }] as const },
        { op: '*' as const, of: [{ constant: 0.1 }, { metric: 'requests' as const }] as const },
      ] as const,
    };

    expect([
      evaluateTripwireExpression(expression, at({ errors: 5, shed: 5, requests: 100 })),
      evaluateTripwireExpression(expression, at({ errors: 5, requests: 100 })),
    ]).toEqual([1, 0]);
  });
});

/**
 * Datapoints written oldest first as the CloudWatch User Guide writes them ("How alarm state is evaluated when data is
 * missing"): X breaching, 0 not, - missing.
 */
const datapoints = (written: string) => (back: number) => {
  const all = written.split(' ');
  const point = all[all.length - 1 - back];
  return point === undefined || point === '-' ? null : point === 'X';
};
const state = (alarm: { evaluationPeriods: number; datapointsToAlarm: number }, written: string) =>
  alarmInAlarm({ ...alarm, treatMissingData: 'breaching' }, datapoints(written)) ? 'ALARM' : 'OK';

describe('alarmInAlarm', () => {
  // The guide's two tables, missing data treated as breaching, 5 datapoints retrieved for 3 evaluation periods.
  it.each([
    ['0 - X - X', 'OK'],
    ['0 - - - -', 'OK'],
    ['- - - - -', 'ALARM'],
    ['0 X X - X', 'ALARM'],
    ['- - - - X', 'ALARM'],
    ['X - - - -', 'ALARM'],
  ])('evaluates %s to %s as the guide does for 3 out of 3', (written, expected) => {
    expect(state({ evaluationPeriods: 3, datapointsToAlarm: 3 }, written)).toBe(expected);
  });

  it.each([
    ['0 - X - X', 'ALARM'],
    ['0 0 X 0 X', 'ALARM'],
    ['0 - X - -', 'ALARM'],
    ['- - - - 0', 'ALARM'],
    ['- - - - X', 'ALARM'],
  ])('evaluates %s to %s as the guide does for 2 out of 3', (written, expected) => {
    expect(state({ evaluationPeriods: 3, datapointsToAlarm: 2 }, written)).toBe(expected);
  });

  const tripwire = tripwireDefinition(SETTINGS, EVERY_SIGNAL);
  if (!tripwire) throw new Error('no tripwire');

  it.each([
    ['0 0 0 0 X', 'ALARM'],
    ['0 0 0 X 0', 'ALARM'],
    ['0 0 X 0 0', 'OK'],
  ])('holds the tripwire through one calm minute after a breach, not two: %s is %s', (written, expected) => {
    expect(state(tripwire, written)).toBe(expected);
  });

  it.each([
    ['0 0 0 X -', 'ALARM'],
    ['0 0 X - -', 'ALARM'],
    ['0 0 X - 0', 'ALARM'],
    ['0 X - 0 0', 'OK'],
    ['X - 0 0 0', 'OK'],
  ])('skips missing datapoints after a breach, reading back to it: %s is %s', (written, expected) => {
    expect(state(tripwire, written)).toBe(expected);
  });

  it.each([
    ['0 0 0 0 -', 'OK'],
    ['0 0 0 - -', 'OK'],
    ['0 0 - - -', 'ALARM'],
  ])('arms on a cluster gone dark once its calm datapoints leave the range: %s is %s', (written, expected) => {
    expect(state(tripwire, written)).toBe(expected);
  });
});

describe('tripwireStates', () => {
  const tripwire = tripwireDefinition(SETTINGS, EVERY_SIGNAL);
  if (!tripwire) throw new Error('no tripwire');
  const series: Partial<Record<SignalName, Sample[]>> = {
    'apiserver.write.p99': [0.2, 1.5, null, null, 0.3, 0.2, 0.2, 0.2],
    'apiserver.requests': [3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000],
  };

  it('arms on a breach and holds through the minute its write p99 misses, which metric math reads as 0, and no longer', () => {
    expect(tripwireStates(tripwire, 8, (signal, index) => series[signal]?.[index] ?? null)).toEqual([
      false,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('takes the minutes before the series as calm, so a calm first minute does not arm', () => {
    expect(tripwireStates(tripwire, 1, () => 0.2)).toEqual([false]);
  });
});

describe('tripwireAlarmMetrics', () => {
  const cluster = (fields: Record<string, unknown>) =>
    deploymentConfigSchema.parse({ clusters: [{ name: 'x', ...fields }] }).clusters[0] as ClusterConfig;
  const on = { enabled: true, ...SETTINGS };

  it('counts the six metrics of an EKS cluster with Container Insights, five without, none when the tripwires are off', () => {
    expect([
      tripwireAlarmMetrics([cluster({})], on),
      tripwireAlarmMetrics([cluster({ source: { containerInsights: false } })], on),
      tripwireAlarmMetrics([cluster({})], { ...on, enabled: false }),
    ]).toEqual([6, 5, 0]);
  });

  it('counts only the custom metrics of a custom profile cluster', () => {
    const custom = cluster({
      source: {
        profile: 'custom',
        custom: { 'apiserver.write.p99': { namespace: 'N', metricName: 'M', stat: 'Average' } },
      },
    });

    expect(tripwireAlarmMetrics([custom], on)).toBe(1);
  });
});
