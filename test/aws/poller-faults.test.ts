import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { CURSOR_KEY } from '../../aws/dynamodb/table-keys.ts';
import type { PollEvent } from '../../functions/poller/poll-on-schedule.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import type { Scenario } from '../../shared/scenario/scenario.ts';
import { type AwsHarness, clearTable, putScenario, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { type CapturedOutput, captureOutput } from '../../support/captured-output.ts';
import { monotonicFollowsArrivals } from '../../support/handler-clock.ts';
import {
  alarmEventFor,
  arriveAt,
  contextFor,
  harnessClusters,
  loadPoller,
  loadTripwire,
  type PollHandler,
  pollAt,
  pollEventFor,
  type TripwireHandler,
  trimmedScenario,
  tripwireAt,
} from '../../support/poller-harness.ts';

/** The fleet outage from 40 minutes before onset: the page is due at step 36 (onset 35, 2 of 3 samples). */
const FROM_STEP = 40;
const PAGE_STEP = 36;
const OUTAGE_END_STEP = 75;

describe('the poller under faults', () => {
  let harness: AwsHarness;
  let poll: PollHandler;
  let tripwire: TripwireHandler;
  let scenario: Scenario;
  let output: CapturedOutput;

  const at = (step: number) => scenario.start + step * 60_000;
  /** The tripwires go off as the outage starts, as the three clusters' PATCH p99 alarms would. */
  const armTripwires = async (state: 'ALARM' | 'OK' = 'ALARM') => {
    for (const cluster of ['dev-a', 'dev-b', 'dev-c']) {
      await tripwireAt(tripwire, cluster, state, at(PAGE_STEP - 1));
    }
  };
  const pollSteps = async (from: number, to: number) => {
    const summaries = [];
    for (let step = from; step <= to; step++) summaries.push(await pollAt(poll, at(step)));
    return summaries;
  };
  /** Poll one step, and return its summary and the metrics it sent (none for a healthy poll without a dashboard). */
  const pollSending = async (step: number) => {
    const before = output.json().length;
    const [summary] = await pollSteps(step, step);
    const written = output.json().slice(before);
    return {
      summary,
      sent: written.filter((line) => '_aws' in line),
      warnings: written.filter((line) => line.level === 'WARN'),
    };
  };
  const sentOf = (kind: Notification['kind']) =>
    harness.sns.published
      .map((p) => JSON.parse(JSON.parse(p.message).default) as Notification)
      .filter((n) => n.kind === kind);

  beforeAll(async () => {
    // The minute between two polls passes for the poller's quota pacers and the fakes' quota meters too, as in Lambda.
    monotonicFollowsArrivals();
    output = captureOutput();
    harness = await startAwsHarness();
    scenario = trimmedScenario('scenarios/fleet-webhook-outage.json', FROM_STEP);
    const clusters = harnessClusters(['dev-a', 'dev-b', 'dev-c']);
    await putScenario(scenario, clusters);
    poll = await loadPoller(harness, clusters);
    tripwire = await loadTripwire();
  }, 60_000);

  beforeEach(async () => {
    await clearTable(harness.dynamoEndpoint);
    harness.sns.reset();
    harness.sns.createTopic('paging');
    harness.sns.createTopic('notice');
    harness.cloudwatch.faults.clear();
    harness.sns.faults.clear();
    harness.cloudwatch.setVisibleUntil(undefined);
    harness.cloudwatch.setPartialData(undefined);
  });

  afterAll(async () => {
    output.restore();
    await harness.close();
  });

  it('reads a quiet cluster only on its slow cadence', async () => {
    // Twenty quiet minutes: each of the three clusters once, on the default 20-minute cadence.
    const summaries = await pollSteps(0, 19);
    expect(summaries.reduce((n, s) => n + s.polled, 0)).toBe(3);
  }, 30_000);

  it('pages once for three clusters black-holing at once, listing them all', async () => {
    await armTripwires();
    await pollSteps(PAGE_STEP - 3, PAGE_STEP + 2);
    const pages = sentOf('page');
    expect(pages).toHaveLength(1);
    expect(pages[0]?.clusters).toEqual(['dev-a', 'dev-b', 'dev-c']);
    expect(pages[0]?.at).toBe(new Date(at(PAGE_STEP)).toISOString().replace('.000Z', 'Z'));
  }, 30_000);

  it('still pages when CloudWatch throttles the first attempts of every call', async () => {
    await armTripwires();
    harness.cloudwatch.faults.inject({ kind: 'throttle', operation: 'GetMetricData', beforeAttempt: 3 });
    const before = harness.cloudwatch.getMetricDataRequests.length;
    await pollSteps(PAGE_STEP - 1, PAGE_STEP);
    // Every call is throttled twice and answered the third time (the recorded requests are the answered ones).
    const answered = harness.cloudwatch.getMetricDataRequests.length - before;
    expect(answered).toBeGreaterThan(0);
    expect(harness.cloudwatch.faults.fired.throttle).toBe(2 * answered);
    expect(sentOf('page')).toHaveLength(1);
  }, 30_000);

  it('keeps the page while SNS is down for three polls and sends it once on the fourth', async () => {
    await armTripwires();
    harness.sns.faults.inject({ kind: 'server-error', operation: 'Publish' });
    const whileDown = await pollSteps(PAGE_STEP, PAGE_STEP + 2);
    expect(whileDown.map((s) => s.deliveryFailures)).toEqual([1, 1, 1]);
    expect(harness.sns.published).toHaveLength(0);
    harness.sns.faults.clear();
    const [recovered] = await pollSteps(PAGE_STEP + 3, PAGE_STEP + 3);
    expect(recovered?.delivered).toBe(1);
    expect(sentOf('page')).toHaveLength(1);
    await pollSteps(PAGE_STEP + 4, PAGE_STEP + 6);
    expect(sentOf('page')).toHaveLength(1);
  }, 30_000);

  it('logs each failed publish and counts it in NotificationFailures', async () => {
    await armTripwires();
    harness.sns.faults.inject({ kind: 'server-error', operation: 'Publish' });
    const before = output.json().length;
    await pollSteps(PAGE_STEP, PAGE_STEP);
    const written = output.json().slice(before);

    expect(written.filter((line) => line.message === 'publish failed, kept for retry')).toEqual([
      expect.objectContaining({ level: 'ERROR', service: 'k8s-incident-sentinel', id: expect.any(String) }),
    ]);
    expect(written.filter((line) => '_aws' in line)).toEqual([expect.objectContaining({ NotificationFailures: 1 })]);
    expect(written.find((line) => '_aws' in line)).not.toHaveProperty('IdlePolls');
  }, 30_000);

  it('emits no metric for a healthy poll when the deployment has no dashboard, and warns of nothing', async () => {
    const healthy = await pollSending(PAGE_STEP - 2);

    expect([healthy.summary?.claim, healthy.sent, healthy.warnings]).toEqual(['claimed', [], []]);
  }, 30_000);

  it('pages once when two pollers run the same minute', async () => {
    await armTripwires();
    await pollSteps(PAGE_STEP - 3, PAGE_STEP - 1);
    const event = pollEventFor(at(PAGE_STEP));
    arriveAt(Date.parse(event.scheduledTime) + 3_000);
    const summaries = await Promise.all([poll(event, contextFor('first')), poll(event, contextFor('second'))]);
    expect(summaries.map((s) => s.claim).sort()).toEqual(expect.arrayContaining(['claimed']));
    expect(summaries.filter((s) => s.claim === 'claimed')).toHaveLength(1);
    expect(sentOf('page')).toHaveLength(1);
  }, 30_000);

  it('never resolves an open incident while recent data is missing', async () => {
    await armTripwires();
    await pollSteps(PAGE_STEP - 3, PAGE_STEP);
    // CloudWatch stops showing anything after the outage ends: recovery is in the data, but the poller cannot see it.
    harness.cloudwatch.setVisibleUntil(new Date(at(OUTAGE_END_STEP - 5)));
    await pollSteps(PAGE_STEP + 1, OUTAGE_END_STEP + 30);
    const resolvesOf = (rule: string) => sentOf('resolve').filter((n) => n.rule === rule);
    expect(resolvesOf('webhook-blackhole')).toHaveLength(0);
    // Going blind is itself worth a page: signals-missing says so after ten minutes without data.
    expect(sentOf('page').map((n) => n.rule)).toEqual(['webhook-blackhole', 'signals-missing']);
    harness.cloudwatch.setVisibleUntil(undefined);
    await pollSteps(OUTAGE_END_STEP + 31, OUTAGE_END_STEP + 50);
    expect(resolvesOf('webhook-blackhole')).toHaveLength(1);
  }, 60_000);

  it('rejects a poll event that is not the schedule’s, naming every wrong path', async () => {
    const event = { kind: 'digest', scheduledTime: 'Monday' } as unknown as PollEvent;
    const reads = harness.cloudwatch.getMetricDataRequests.length;

    await expect(poll(event, contextFor())).rejects.toThrow(
      /^invalid event: \$\.kind: .*"poll".*; \$\.scheduledTime: expected the schedule time as ISO-8601$/,
    );
    expect(harness.cloudwatch.getMetricDataRequests).toHaveLength(reads);
  });

  it('rejects a tripwire event that is not an alarm state change, naming every wrong path', async () => {
    const event = alarmEventFor('dev-a', 'ALARM', at(PAGE_STEP));
    const broken = { ...event, time: 'now', detail: { ...event.detail, state: { value: 'FIRING' } } };

    await expect(tripwire(broken as unknown as typeof event, contextFor())).rejects.toThrow(
      /^invalid event: \$\.time: .*; \$\.detail\.state\.value: .*; \$\.detail\.state\.timestamp: .*$/,
    );
  });

  it('never resolves an open incident on PartialData answers', async () => {
    await armTripwires();
    await pollSteps(PAGE_STEP - 3, PAGE_STEP);
    harness.cloudwatch.setPartialData(1);
    await pollSteps(OUTAGE_END_STEP, OUTAGE_END_STEP + 30);
    expect(sentOf('resolve')).toHaveLength(0);
  }, 60_000);

  describe('events and clocks from the wrong time', () => {
    const FUTURE = '2099-01-01T00:00:00Z';

    it('refuses a poll event from the future without reading anything, and a real outage after it pages once', async () => {
      arriveAt(at(PAGE_STEP - 10));
      const reads = harness.cloudwatch.getMetricDataRequests.length;

      await expect(poll({ kind: 'poll', scheduledTime: FUTURE }, contextFor())).rejects.toThrow(
        /^\$\.scheduledTime: 2099-01-01T00:00:00Z is \d+ years ahead of this invocation's clock \(\d{4}-.*\); events are accepted from 24 hours behind to 2 minutes ahead$/,
      );
      expect(harness.cloudwatch.getMetricDataRequests).toHaveLength(reads);
      await armTripwires();
      const summaries = await pollSteps(PAGE_STEP - 3, PAGE_STEP + 2);

      expect(summaries.map((s) => s.claim)).toEqual(Array(6).fill('claimed'));
      expect(sentOf('page')).toHaveLength(1);
    }, 30_000);

    it('recovers from a step cursor that an earlier version left in the future', async () => {
      const wedge = Date.parse(FUTURE);
      await documentClient().send(
        new PutCommand({
          TableName: TABLE,
          Item: { ...CURSOR_KEY, claimedStep: wedge, owner: 'wedge', leaseUntil: wedge, doneStep: wedge },
        }),
      );
      await armTripwires();
      const summaries = await pollSteps(PAGE_STEP - 3, PAGE_STEP + 2);

      expect(summaries.map((s) => s.claim)).toEqual(Array(6).fill('claimed'));
      expect(sentOf('page')).toHaveLength(1);
    }, 30_000);

    it('refuses a tripwire change from the future, and the real alarm still arms the minute cadence', async () => {
      arriveAt(at(PAGE_STEP - 10));

      await expect(tripwire(alarmEventFor('dev-a', 'OK', Date.parse(FUTURE)), contextFor())).rejects.toThrow(
        /^\$\.detail\.state\.timestamp: 2099-01-01T00:00:00.000Z is \d+ years ahead of this invocation's clock/,
      );
      await armTripwires();
      const summaries = await pollSteps(PAGE_STEP - 3, PAGE_STEP + 2);

      expect(summaries.every((s) => s.polled === 3)).toBe(true);
      expect(sentOf('page')).toHaveLength(1);
    }, 30_000);

    it('counts an idle poll for each poll that did not evaluate its own step with fresh data, and sends nothing for one that did', async () => {
      await armTripwires();
      const fresh = await pollSending(PAGE_STEP);
      // A retried poll of an older step finds it stale: it evaluated nothing.
      const stale = await pollSending(PAGE_STEP - 1);
      // CloudWatch stops showing the newest minutes: the next poll reads only gaps at its step.
      harness.cloudwatch.setVisibleUntil(new Date(at(PAGE_STEP - 5)));
      const blind = await pollSending(PAGE_STEP + 1);

      expect([stale.summary?.claim, blind.summary?.claim, blind.summary?.polled]).toEqual(['stale', 'claimed', 3]);
      expect([fresh, stale, blind].map((poll) => poll.sent.map((line) => line.IdlePolls))).toEqual([[], [1], [1]]);
    }, 30_000);
  });
});
