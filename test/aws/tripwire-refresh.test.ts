import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { cloudWatchClients, documentClient } from '../../aws/clients.ts';
import { DESCRIBE_ALARMS_MAX_RECORDS } from '../../aws/cloudwatch/describe-alarms-pacing.ts';
import { CloudWatchTripwireAlarms } from '../../aws/cloudwatch/tripwire-alarms.ts';
import { DynamoDbTable } from '../../aws/dynamodb/table.ts';
import { DynamoDbTripwireRecorder } from '../../aws/dynamodb/tripwire-recorder.ts';
import { DynamoDbTripwires } from '../../aws/dynamodb/tripwires.ts';
import { tripwireAlarmName } from '../../shared/pipeline/alarm-names.ts';
import { refreshTripwires } from '../../shared/pipeline/tripwire-refresh.ts';
import { tripwireRenewalWindowMs } from '../../shared/pipeline/tripwire-state.ts';
import { DAY_MS } from '../../shared/time.ts';
import { type AwsHarness, clearTable, putScenario, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { type CapturedOutput, captureOutput } from '../../support/captured-output.ts';
import {
  harnessClusters,
  loadPoller,
  loadTripwire,
  type PollHandler,
  pollAt,
  type TripwireHandler,
  trimmedScenario,
  tripwireAt,
} from '../../support/poller-harness.ts';
import { DESCRIBE_ALARMS_PER_SECOND } from '../../support/request-rate-quotas.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The default slow cadence, 20 minutes, in steps. */
const CYCLE = 20;

describe('the tripwire states read back from CloudWatch on the slow cadence', () => {
  let harness: AwsHarness;
  let poll: PollHandler;
  let tripwire: TripwireHandler;
  let output: CapturedOutput;
  /**
   * A quiet step that opens a slow cycle, when the poller reads the tripwire alarms back. dev-a's full reads fall two
   * steps after it, so a read of dev-a from T - 1 to T + 1 is a minute read its tripwire armed. The refresh runs beside
   * step T, which arms on the states recorded before it: what the refresh records arms from T + 1.
   */
  let T: number;

  /** dev-a's tripwire alarm as CloudWatch holds it: in `state` since `since`. */
  const alarmHolds = (state: 'ALARM' | 'OK', since: number) =>
    harness.cloudwatch.setAlarm({
      AlarmName: tripwireAlarmName('test', 'dev-a'),
      StateValue: state,
      StateReason: 'Threshold Crossed',
      StateTransitionedTimestamp: new Date(since),
      StateUpdatedTimestamp: new Date(since),
    });

  beforeAll(async () => {
    output = captureOutput();
    harness = await startAwsHarness();
    // The fleet outage's first quiet half hour: dev-a reads healthy, so only its tripwire holds it on minute reads.
    const scenario = trimmedScenario('scenarios/fleet-webhook-outage.json', 40);
    const clusters = harnessClusters(['dev-a']);
    await putScenario(scenario, clusters);
    const first = scenario.start / MINUTE;
    T = Math.ceil((first + 10) / CYCLE) * CYCLE * MINUTE;
    poll = await loadPoller(harness, clusters);
    tripwire = await loadTripwire();
  }, 60_000);

  beforeEach(async () => {
    await clearTable(harness.dynamoEndpoint);
    harness.cloudwatch.faults.clear();
  });

  afterAll(async () => {
    output.restore();
    await harness.close();
  });

  it('still arms minute reads for an alarm in ALARM for 30 hours, once its recorded state has expired', async () => {
    await tripwireAt(tripwire, 'dev-a', 'ALARM', T - 30 * HOUR);
    alarmHolds('ALARM', T - 30 * HOUR);

    const expired = await pollAt(poll, T - MINUTE);
    const refreshing = await pollAt(poll, T);
    const next = await pollAt(poll, T + MINUTE);

    // Step T arms on the expired state, as it was before its refresh; the refreshed one arms the step after.
    expect([expired.polled, refreshing.polled, next.polled]).toEqual([0, 0, 1]);
  }, 30_000);

  it('arms minute reads for an alarm in ALARM whose state change was never recorded', async () => {
    alarmHolds('ALARM', T - 30 * HOUR);

    const before = await pollAt(poll, T - MINUTE);
    const refreshing = await pollAt(poll, T);
    const next = await pollAt(poll, T + MINUTE);

    // A minute after the refresh's step, which still read the table without the state.
    expect([before.polled, refreshing.polled, next.polled]).toEqual([0, 0, 1]);
  }, 30_000);

  it('disarms a tripwire whose alarm went OK while its event was lost', async () => {
    await tripwireAt(tripwire, 'dev-a', 'ALARM', T - 30 * MINUTE);
    alarmHolds('OK', T - 10 * MINUTE);

    const armed = await pollAt(poll, T - MINUTE);
    const refreshing = await pollAt(poll, T);
    const next = await pollAt(poll, T + MINUTE);

    // Step T still arms on the recorded ALARM; the refreshed OK holds from the step after.
    expect([armed.polled, refreshing.polled, next.polled]).toEqual([1, 1, 0]);
  }, 30_000);

  it('keeps polling on the recorded states when DescribeAlarms fails, and says so', async () => {
    await tripwireAt(tripwire, 'dev-a', 'ALARM', T - 30 * MINUTE);
    alarmHolds('OK', T - 10 * MINUTE);
    harness.cloudwatch.faults.inject({ kind: 'server-error', operation: 'DescribeAlarms' });
    const logged = output.json().length;

    const summary = await pollAt(poll, T);

    expect([summary.claim, summary.polled]).toEqual(['claimed', 1]);
    expect(harness.cloudwatch.faults.fired['server-error']).toBeGreaterThan(0);
    expect(
      output
        .json()
        .slice(logged)
        .filter((line) => line.level === 'ERROR')
        .map((line) => [line.message, line.error]),
    ).toEqual([
      [
        'tripwire alarms unreadable in CloudWatch; the recorded states stand until the next slow cycle',
        expect.stringContaining('Internal service error'),
      ],
    ]);
  }, 60_000);

  it('pages DescribeAlarms by the deployment prefix, 100 alarms at a time, in each Region with tripwires', async () => {
    for (let i = 0; i < DESCRIBE_ALARMS_MAX_RECORDS + 50; i++) {
      const name = tripwireAlarmName('fleet', `c${i}`);
      harness.cloudwatch.setAlarm({
        AlarmName: name,
        AlarmArn: `arn:aws:cloudwatch:us-east-1:111122223333:alarm:${name}`,
        StateValue: 'ALARM',
        StateTransitionedTimestamp: new Date(T),
      });
    }
    harness.cloudwatch.setAlarm({
      AlarmName: tripwireAlarmName('fleet', 'eu-a'),
      AlarmArn: `arn:aws:cloudwatch:eu-west-1:111122223333:alarm:${tripwireAlarmName('fleet', 'eu-a')}`,
      StateValue: 'OK',
      StateTransitionedTimestamp: new Date(T),
    });
    harness.cloudwatch.setAlarm({
      AlarmName: tripwireAlarmName('fleet-other', 'dev-a'),
      StateValue: 'ALARM',
      StateTransitionedTimestamp: new Date(T),
    });
    const alarms = (regions: string[]) =>
      new CloudWatchTripwireAlarms({ deployment: 'fleet', clientFor: cloudWatchClients('us-east-1'), regions });

    const before = harness.cloudwatch.calls.DescribeAlarms ?? 0;
    const home = await alarms(['default']).states();
    const calls = (harness.cloudwatch.calls.DescribeAlarms ?? 0) - before;
    const both = await alarms(['default', 'eu-west-1', 'eu-west-1']).states();

    expect([home.length, calls, home.every((a) => a.state === 'ALARM' && a.changedAt === T)]).toEqual([150, 2, true]);
    expect(both.filter((a) => a.cluster === 'eu-a')).toEqual([{ cluster: 'eu-a', state: 'OK', changedAt: T }]);
    expect(both).toHaveLength(151);
  }, 30_000);

  it('reads 15 pages of alarms in one Region under its 9 DescribeAlarms a second, and records every one', async () => {
    const clusters = Array.from({ length: 1_500 }, (_, i) => `big-${i}`);
    for (const cluster of clusters) {
      const name = tripwireAlarmName('large', cluster);
      harness.cloudwatch.setAlarm({
        AlarmName: name,
        AlarmArn: `arn:aws:cloudwatch:us-east-1:111122223333:alarm:${name}`,
        StateValue: 'ALARM',
        StateTransitionedTimestamp: new Date(T - MINUTE),
      });
    }
    const db = documentClient();
    const refresh = {
      alarms: new CloudWatchTripwireAlarms({
        deployment: 'large',
        clientFor: cloudWatchClients('us-east-1'),
        regions: ['default'],
      }),
      recorder: new DynamoDbTripwireRecorder(db, TABLE),
    };
    // The earlier tests' calls are no part of this second, as the poller's refresh has the Region to itself.
    harness.cloudwatch.describeAlarmsQuota.reset();
    const before = harness.cloudwatch.calls.DescribeAlarms ?? 0;

    const { recorded } = await refreshTripwires(refresh, { clusters: new Set(clusters), cycleMs: CYCLE * MINUTE }, T);
    const { byAlarm } = await new DynamoDbTripwires(
      new DynamoDbTable({ client: db, table: TABLE, now: () => T }),
    ).armed(T);

    expect(harness.cloudwatch.describeAlarmsQuota.perSecond).toBe(DESCRIBE_ALARMS_PER_SECOND);
    expect(harness.cloudwatch.describeAlarmsQuota.throttled).toBe(0);
    expect((harness.cloudwatch.calls.DescribeAlarms ?? 0) - before).toBe(clusters.length / DESCRIBE_ALARMS_MAX_RECORDS);
    expect([recorded, byAlarm.size]).toEqual([1_500, 1_500]);
  }, 30_000);

  describe('a fleet refreshed cycle after cycle', () => {
    const clusters = Array.from({ length: 250 }, (_, i) => `steady-${i}`);
    const changed = ['steady-3', 'steady-70', 'steady-249'];
    const db = documentClient();
    const tripwires = new DynamoDbTripwires(new DynamoDbTable({ client: db, table: TABLE, now: () => T }));
    /** The cluster of every conditional put the refresh sends, through the recorder the poller uses. */
    const puts: string[] = [];
    const recorder = new DynamoDbTripwireRecorder(db, TABLE);
    const refresh = {
      alarms: new CloudWatchTripwireAlarms({
        deployment: 'steady',
        clientFor: cloudWatchClients('us-east-1'),
        regions: ['default'],
      }),
      recorder: {
        record: (cluster: string, state: string, changedAt: number, now: number) => {
          puts.push(cluster);
          return recorder.record(cluster, state, changedAt, now);
        },
      },
    };
    const alarmOf = (cluster: string, state: 'ALARM' | 'OK', since: number) => {
      const name = tripwireAlarmName('steady', cluster);
      harness.cloudwatch.setAlarm({
        AlarmName: name,
        AlarmArn: `arn:aws:cloudwatch:us-east-1:111122223333:alarm:${name}`,
        StateValue: state,
        StateTransitionedTimestamp: new Date(since),
      });
    };
    /** The refresh of the slow cycle at `at`, as a poll runs it: over the states its step read from the table. */
    const refreshAt = async (at: number) => {
      puts.length = 0;
      const { recorded } = await tripwires.armed(at);
      return refreshTripwires(refresh, { clusters: new Set(clusters), recorded, cycleMs: CYCLE * MINUTE }, at);
    };

    beforeEach(() => {
      for (const cluster of clusters) alarmOf(cluster, 'ALARM', T - HOUR);
      harness.cloudwatch.describeAlarmsQuota.reset();
    });

    it('writes nothing the second time when no alarm changed', async () => {
      const first = await refreshAt(T);
      const second = await refreshAt(T + CYCLE * MINUTE);

      expect([first.written, second]).toEqual([250, { states: 250, written: 0, recorded: 0 }]);
      expect(puts).toEqual([]);
    }, 30_000);

    it('writes exactly the alarms that changed since, and the table then holds them', async () => {
      await refreshAt(T);
      for (const cluster of changed) alarmOf(cluster, 'OK', T + 5 * MINUTE);

      const second = await refreshAt(T + CYCLE * MINUTE);
      const { byAlarm } = await tripwires.armed(T + CYCLE * MINUTE);

      expect([second.written, puts.sort()]).toEqual([3, [...changed].sort()]);
      expect([byAlarm.size, changed.some((c) => byAlarm.has(c))]).toEqual([247, false]);
    }, 30_000);

    it('renews the unchanged states once they near their expiry, and keeps them armed', async () => {
      await refreshAt(T);

      // The first refresh after the day less the renewal window: the states written at T expire within it.
      const nearExpiry = T + DAY_MS - tripwireRenewalWindowMs(CYCLE * MINUTE);
      const renewal = await refreshAt(nearExpiry);
      const { byAlarm } = await tripwires.armed(T + DAY_MS + MINUTE);

      expect([renewal.written, byAlarm.size]).toEqual([250, 250]);
    }, 30_000);
  });
});
