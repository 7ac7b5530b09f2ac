import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { PIPELINE_ALARM_RULE } from '../../shared/delivery/pipeline-alarm.ts';
import {
  type DeliveryHandler,
  type DeliveryHarness,
  LAMBDA_CONTEXT,
  loadDelivery,
  startDeliveryHarness,
  VENDOR_SUBSCRIBERS,
} from '../support/delivery-harness.ts';
import { type JsmServer, startJsmServer } from '../support/jsm-server.ts';

const JSM_SECRET = 'sentinel/jsm';
const JSM_KEY = 'jsm-api-key-0001';
const ALARM = 'OpsStack-PollerHeartbeat';
const IN_ALARM_SINCE = '2026-03-04T09:31:12.345+0000';
const OK_SINCE = '2026-03-04T09:52:00.120+0000';

let harness: DeliveryHarness;
let jsm: JsmServer;
let handler: DeliveryHandler;

/** The event CloudWatch sends EventBridge when an alarm changes state, as the PipelineAlarms rule queues it. */
function alarmEvent(
  value: 'ALARM' | 'OK',
  timestamp: string,
  previous: { value: string; timestamp: string },
  alarmName = ALARM,
): SQSRecord {
  const event = {
    version: '0',
    id: `event-${alarmName}-${value}-${timestamp}`,
    'detail-type': 'CloudWatch Alarm State Change',
    source: 'aws.cloudwatch',
    account: '111111111111',
    time: timestamp,
    region: 'eu-west-1',
    resources: [`arn:aws:cloudwatch:eu-west-1:111111111111:alarm:${alarmName}`],
    detail: {
      alarmName,
      configuration: { description: 'No poll evaluated its own step with fresh data for 5 minutes.', metrics: [] },
      previousState: { ...previous, reason: 'before' },
      state: { value, timestamp, reason: 'Threshold Crossed: 5 out of the last 5 datapoints were less than 1.0.' },
    },
  };
  return {
    messageId: `msg-${event.id}`,
    receiptHandle: 'receipt',
    body: JSON.stringify(event),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.parse(timestamp)),
      SenderId: 'AIDAEXAMPLE',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:111111111111:delivery',
    awsRegion: 'eu-west-1',
  };
}

const inAlarm = () => alarmEvent('ALARM', IN_ALARM_SINCE, { value: 'OK', timestamp: '2026-03-01T00:00:00.000+0000' });
const backToOk = () => alarmEvent('OK', OK_SINCE, { value: 'ALARM', timestamp: IN_ALARM_SINCE });
const deliver = (...records: SQSRecord[]) => handler({ Records: records } as SQSEvent, LAMBDA_CONTEXT);

const KEY = `${PIPELINE_ALARM_RULE}/${ALARM}/2026-03-04T09:31:12.345Z`;

beforeAll(async () => {
  harness = await startDeliveryHarness();
  jsm = await startJsmServer();
  process.env.SENTINEL_JSM_ENDPOINT = jsm.endpoint;
  handler = await loadDelivery(
    [{ name: 'pay-prod' }, { name: 'search-prod' }],
    [
      // Team payments' services hear only payments' clusters, and still the pipeline's alarms.
      { clusters: ['pay-prod'], subscribers: VENDOR_SUBSCRIBERS },
      { subscribers: [{ protocol: 'jsm', apiKeySecret: { secretName: JSM_SECRET }, region: 'eu' }] },
    ],
  );
});

afterAll(async () => {
  await Promise.all([harness?.close(), jsm?.close()]);
});

beforeEach(async () => {
  await harness.reset();
  jsm.reset();
  harness.secrets.putSecret(JSM_SECRET, JSM_KEY);
  jsm.apiKeys.clear();
  jsm.apiKeys.add(JSM_KEY);
});

describe("the pipeline's own alarms, through the delivery function", () => {
  it('page PagerDuty, Opsgenie and JSM on ALARM, under one key per time in alarm, and resolve them on OK', async () => {
    expect((await deliver(inAlarm())).batchItemFailures).toEqual([]);

    const [incident] = harness.pagerduty.incidentsFor(KEY);
    expect(incident?.status).toBe('triggered');
    const trigger = incident?.triggers[0] as { payload: { summary: string; custom_details: { whatToDo: string[] } } };
    expect(trigger.payload.summary).toMatch(/^Pipeline alarm OpsStack-PollerHeartbeat \(111111111111 eu-west-1\)/);
    expect(trigger.payload.custom_details.whatToDo.join(' ')).toMatch(/poll schedule \(EventBridge Scheduler\)/);
    expect(harness.opsgenie.alertsFor(KEY).map((a) => [a.status, a.count])).toEqual([['open', 1]]);
    expect(jsm.alertsFor(KEY).map((a) => a.status)).toEqual(['open']);

    expect((await deliver(backToOk())).batchItemFailures).toEqual([]);

    expect(harness.pagerduty.incidentsFor(KEY).map((i) => i.status)).toEqual(['resolved']);
    expect(harness.opsgenie.alertsFor(KEY).map((a) => a.status)).toEqual(['closed']);
    expect(jsm.alertsFor(KEY).map((a) => a.status)).toEqual(['closed']);
    expect(harness.pagerduty.unmatchedResolves).toEqual([]);
  });

  it("pages a workload account's forwarding dead-letter alarm, forwarded to the ops account, naming its account and Region", async () => {
    const forwarded = 'OpsStack-ForwardingDeadLetters';
    const record = alarmEvent('ALARM', IN_ALARM_SINCE, { value: 'OK', timestamp: IN_ALARM_SINCE }, forwarded);
    expect((await deliver(record)).batchItemFailures).toEqual([]);

    const [incident] = harness.pagerduty.incidentsFor(`${PIPELINE_ALARM_RULE}/${forwarded}/2026-03-04T09:31:12.345Z`);
    const trigger = incident?.triggers[0] as { payload: { summary: string; custom_details: { whatToDo: string[] } } };
    expect(trigger.payload.summary).toMatch(
      /^Pipeline alarm OpsStack-ForwardingDeadLetters \(111111111111 eu-west-1\)/,
    );
    expect(trigger.payload.custom_details.whatToDo.join(' ')).toMatch(/DeadLetters. queue/);
  });

  it('pages once when the same state change is delivered again, by EventBridge or by SQS', async () => {
    await deliver(inAlarm());
    await deliver(inAlarm(), inAlarm());

    expect(harness.pagerduty.incidentsFor(KEY).map((i) => i.triggers.length)).toEqual([1]);
    expect(harness.opsgenie.alertsFor(KEY).map((a) => a.notes.length)).toEqual([0]);
    expect(jsm.alertsFor(KEY)).toHaveLength(1);
    expect(harness.pagerduty.incidents).toHaveLength(1);
  });

  it("opens a new incident for the alarm's next time in ALARM instead of dropping it as stale", async () => {
    await deliver(inAlarm());
    await deliver(backToOk());
    await deliver(alarmEvent('ALARM', '2026-03-04T11:00:00.000+0000', { value: 'OK', timestamp: OK_SINCE }));

    expect(harness.pagerduty.incidents.map((i) => [i.dedupKey, i.status])).toEqual([
      [KEY, 'resolved'],
      [`${PIPELINE_ALARM_RULE}/${ALARM}/2026-03-04T11:00:00Z`, 'triggered'],
    ]);
  });

  it('pages no one for an OK that follows INSUFFICIENT_DATA, as a new alarm has', async () => {
    const created = alarmEvent('OK', OK_SINCE, { value: 'INSUFFICIENT_DATA', timestamp: IN_ALARM_SINCE });

    expect((await deliver(created)).batchItemFailures).toEqual([]);

    expect(harness.pagerduty.incidents).toEqual([]);
    expect(harness.pagerduty.unmatchedResolves).toEqual([]);
  });

  it('leaves an event that is not an alarm state change for the dead-letter queue, naming the field', async () => {
    const record = inAlarm();
    const broken = { ...record, body: record.body.replace('"alarmName":"OpsStack-PollerHeartbeat"', '"alarmName":""') };

    expect((await deliver(broken)).batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(harness.pagerduty.incidents).toEqual([]);
  });
});
