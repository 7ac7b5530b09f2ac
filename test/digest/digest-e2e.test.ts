import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { digestCommand, StoreReadError } from '../../cli/digest-command.ts';
import type { DigestEvent, DigestSummary } from '../../functions/digest/digest-on-schedule.ts';
import type { Digest } from '../../shared/digest/digest.ts';
import type { Scenario } from '../../shared/scenario/scenario.ts';
import { type AwsHarness, putScenario, startAwsHarness, TABLE } from '../support/aws-harness.ts';
import { type CapturedOutput, captureOutput } from '../support/captured-output.ts';
import { contextFor, harnessClusters, loadPoller, pollEventFor, trimmedScenario } from '../support/poller-harness.ts';
import { flowing, wideLines } from './digest-fixtures.ts';

type DigestHandler = (event: DigestEvent, context: Context) => Promise<DigestSummary>;

/** Five hours of latent webhook latency before the outage, the outage, the repair loop and the recovery. */
const OPA_FROM_STEP = 4050;
/** Monday 09:00 after the outage week, when the schedule runs the digest of 2019-W10. */
const NEXT_MONDAY = '2019-03-11T09:00:00Z';

describe('the digest Lambda over the real wire', () => {
  let harness: AwsHarness;
  let scenario: Scenario;
  let digest: DigestHandler;
  let summary: DigestSummary;
  let configFile: string;
  let output: CapturedOutput;

  beforeAll(async () => {
    output = captureOutput();
    harness = await startAwsHarness();
    scenario = trimmedScenario('scenarios/opa-webhook-outage.json', OPA_FROM_STEP);
    const clusters = harnessClusters(['dev-euw1']);
    await putScenario(scenario, clusters);
    // The functions' clock follows the schedule, so that polls and deliveries are recorded on the scenario's days,
    // where the digest looks for them; it still advances in real time within an invocation, so durations are real.
    let scheduledAt = 0;
    let calledAt = 0;
    jest.spyOn(Date, 'now').mockImplementation(() => scheduledAt + (performance.now() - calledAt));
    const poll = await loadPoller(harness, clusters, { poll: { every: '1m' } });
    configFile = process.env.SENTINEL_CONFIG_FILE as string;
    for (let step = 0; step < scenario.steps; step++) {
      const event = pollEventFor(scenario.start + step * 60_000);
      scheduledAt = Date.parse(event.scheduledTime);
      calledAt = performance.now();
      await poll(event, contextFor());
    }
    digest = (await import('../../functions/digest/handler.ts')).handler as unknown as DigestHandler;
    summary = await digest({ kind: 'digest', scheduledTime: NEXT_MONDAY }, contextFor());
  }, 120_000);

  afterAll(async () => {
    output.restore();
    jest.restoreAllMocks();
    await harness.close();
  });

  const onDigestTopic = () =>
    harness.sns.published
      .filter((p) => p.topicArn === harness.topics.digest)
      .map((p) => ({ ...p, body: JSON.parse(p.message) as Record<string, string> }));
  const sentDigest = () => JSON.parse(onDigestTopic()[0]?.body.sqs ?? '{}') as Digest;

  it('publishes one digest of the week that ended, named in its subject', () => {
    expect(onDigestTopic().map((p) => p.subject)).toEqual([
      // The harness polled 615 minutes of the week: a deployment's digest says its pipeline did not cover the rest.
      "Sentinel digest 2019-W10: PIPELINE DEGRADED (only 6% of the week's polls ran), 1 page (test)",
    ]);
    expect(summary).toMatchObject({ week: '2019-W10', messageId: onDigestTopic()[0]?.messageId });
  });

  it('sets the attributes a subscriber filters on', () => {
    expect(onDigestTopic()[0]?.messageAttributes).toEqual({
      kind: { DataType: 'String', StringValue: 'digest' },
      week: { DataType: 'String', StringValue: '2019-W10' },
    });
  });

  it('sends the email text to email subscribers and the whole digest as JSON to SQS and Lambda', () => {
    const body = onDigestTopic()[0]?.body ?? {};

    expect(Object.keys(body).sort()).toEqual(['default', 'email', 'https', 'lambda', 'sms', 'sqs']);
    expect(body.default).toBe(body.email);
    expect(JSON.parse(body.lambda ?? '{}')).toEqual(sentDigest());
    expect(JSON.parse(body.https ?? '{}')).toMatchObject({ version: '1.0', source: 'custom' });
    expect(wideLines(body.email ?? '')).toEqual([]);
  });

  it('lists the outage as the poller recorded it in DynamoDB', () => {
    expect(sentDigest().incidents.map((i) => [i.rule, i.status, i.openedAt, i.openForMs / 60_000])).toEqual([
      ['webhook-blackhole', 'resolved', '2019-03-04T09:31:00Z', 95],
      ['webhook-latency-tax', 'resolved', expect.any(String), expect.any(Number)],
    ]);
    expect(flowing(onDigestTopic()[0]?.body.email ?? '')).toContain(
      'Opened 2019-03-04 09:31, resolved after 1 h 35 min; 3 notifications this week.',
    );
  });

  it('counts the polls, their CloudWatch metrics and their cost as the wire saw them', () => {
    const { pipeline, cost } = sentDigest();
    const queried = harness.cloudwatch.getMetricDataRequests.reduce(
      (n, r) => n + (r.MetricDataQueries?.length ?? 0),
      0,
    );

    // No gap between the polls; the gap is from the last of them to the end of the week.
    expect([pipeline.polls, pipeline.failed, pipeline.late, pipeline.longestGap?.to]).toEqual([
      scenario.steps,
      0,
      0,
      '2019-03-11T00:00:00Z',
    ]);
    expect([pipeline.metricsRequested, cost.metricsRequested]).toEqual([queried, queried]);
    expect(cost.cloudWatchUsd).toBeCloseTo((queried / 1000) * 0.01, 9);
    expect(cost.lambdaGbSeconds).toBeGreaterThan(0);
  });

  it('counts the notifications the poller delivered', () => {
    expect(sentDigest().pipeline).toMatchObject({ notificationsSent: 5, notificationsPending: 0, retried: [] });
  });

  it('says so in the subject when the week had no poll at all', async () => {
    const quiet = await digest({ kind: 'digest', scheduledTime: '2019-03-18T09:00:00Z' }, contextFor());

    expect(quiet.subject).toBe('Sentinel digest 2019-W11: NO POLLS RECORDED, check the poller (test)');
    expect(onDigestTopic().map((p) => p.subject)).toContain(quiet.subject);
  });

  it('rejects an event that is not the digest schedule, naming the wrong path', async () => {
    const poll = { kind: 'poll', scheduledTime: NEXT_MONDAY } as unknown as DigestEvent;

    await expect(digest(poll, contextFor())).rejects.toThrow(/^invalid event: \$\.kind: .*"digest"/);
  });

  it('logs the digest it sent, with the week and the message id', () => {
    const sent = output.json().filter((line) => line.message === 'digest sent');

    expect(sent[0]).toMatchObject({ level: 'INFO', week: '2019-W10', messageId: summary.messageId });
  });

  it('renders the same digest from the deployed table on the command line', async () => {
    const out: string[] = [];

    await digestCommand(
      { config: configFile, week: '2019-W10', table: TABLE, json: true },
      { stdout: (line) => out.push(line), stderr: () => undefined },
    );

    expect({ ...(JSON.parse(out.join('\n')) as Digest), source: undefined }).toEqual({
      ...sentDigest(),
      source: undefined,
    });
  });

  it('says in one line that it cannot read a table that does not exist', async () => {
    const reading = digestCommand(
      { config: configFile, week: '2019-W10', table: 'no-such-table' },
      { stdout: () => undefined, stderr: () => undefined },
    );

    await expect(reading).rejects.toThrow(StoreReadError);
    await expect(reading).rejects.toThrow(/^cannot read table "no-such-table": ResourceNotFoundException: [^\n]+$/);
  });
});
