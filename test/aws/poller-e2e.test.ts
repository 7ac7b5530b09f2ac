import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { digestCommand, StoreReadError } from '../../cli/digest-command.ts';
import type { DigestEvent, DigestSummary } from '../../functions/digest/digest-on-schedule.ts';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import type { Digest } from '../../shared/digest/digest.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import type { Scenario } from '../../shared/scenario/scenario.ts';
import { type AwsHarness, putScenario, startAwsHarness, TABLE } from '../../support/aws-harness.ts';
import { type CapturedOutput, captureOutput } from '../../support/captured-output.ts';
import { monotonicFollowsArrivals } from '../../support/handler-clock.ts';
import {
  arriveAt,
  contextFor,
  harnessClusters,
  loadPoller,
  type PollHandler,
  pollAt,
  trimmedScenario,
} from '../../support/poller-harness.ts';
import { flowing, wideLines } from '../digest/digest-fixtures.ts';
import { metricRows, parseJsurl } from '../support/jsurl.ts';

/** A line in CloudWatch embedded metric format: metric definitions under `_aws`, dimensions and values beside them. */
interface EmfLine {
  readonly _aws: {
    readonly CloudWatchMetrics: readonly {
      readonly Namespace: string;
      readonly Dimensions: readonly (readonly string[])[];
      readonly Metrics: readonly { readonly Name: string; readonly Unit: string }[];
    }[];
  };
  readonly [field: string]: unknown;
}

const emfLines = (output: CapturedOutput) => output.json().filter((line) => '_aws' in line) as unknown as EmfLine[];

type DigestHandler = (event: DigestEvent, context: Context) => Promise<DigestSummary>;

/** Five hours of latent webhook latency before the outage, the outage, the repair loop and the recovery. */
const OPA_FROM_STEP = 4050;
/** Metrics one poll of the cluster requests: those of the signals the default rules read (see the test below). */
const METRICS_READ = 14;

/** Monday 09:00 after the outage week, when the schedule runs the digest of 2019-W10. */
const NEXT_MONDAY = '2019-03-11T09:00:00Z';

/*
 * The OPA webhook outage, polled minute by minute by the real poller handler against loopback CloudWatch, SNS and
 * DynamoDB; then the real digest handler sums up the week from what the poller recorded. Replaying the 615 minutes is
 * most of this file's time, so both describe blocks read the one replay: the poller's first, before the digest
 * publishes anything of its own.
 */
let harness: AwsHarness;
let scenario: Scenario;
let poll: PollHandler;
let replayed: readonly Notification[];
let putCalls: number;
let configFile: string;
let output: CapturedOutput;

beforeAll(async () => {
  // The minute between two polls passes for the poller's quota pacers and the fakes' quota meters too, as in Lambda:
  // in real time the 615 polls would run up against the poller's share of DescribeAlarms every ninth poll.
  monotonicFollowsArrivals();
  output = captureOutput();
  harness = await startAwsHarness();
  scenario = trimmedScenario('scenarios/opa-webhook-outage.json', OPA_FROM_STEP);
  const clusters = harnessClusters(['dev-euw1']);
  putCalls = await putScenario(scenario, clusters);
  // Every cluster every minute, in the poller and in the replay alike, so that the two must agree exactly; with the
  // dashboard, so that every pipeline metric is emitted.
  const everyMinute = { poll: { every: '1m' }, dashboard: { enabled: true } };
  poll = await loadPoller(harness, clusters, everyMinute);
  configFile = process.env.SENTINEL_CONFIG_FILE as string;
  const { config, ruleSet } = loadConfig({ clusters, ...everyMinute }, 'test config');
  replayed = (await replayScenario(scenario, { ruleSet, config })).notifications;
  // The functions' clock follows the schedule, so that polls and deliveries are recorded on the scenario's days,
  // where the digest looks for them.
  for (let step = 0; step < scenario.steps; step++) {
    await pollAt(poll, scenario.start + step * 60_000);
  }
}, 300_000); // Well under a minute on a busy two-core machine: the polls are bound by CPU, not by pacing.

afterAll(async () => {
  output.restore();
  await harness.close();
});

describe('the poller over the real wire', () => {
  const published = () =>
    harness.sns.published.map((p) => ({ ...p, body: JSON.parse(p.message) as Record<string, string> }));
  const sent = () => published().map((p) => JSON.parse(p.body.default ?? '{}') as Notification);

  it('loads the scenario through PutMetricData', () => {
    expect(putCalls).toBeGreaterThan(0);
    expect(harness.cloudwatch.calls.PutMetricData).toBe(putCalls);
  });

  it('publishes exactly the notifications the replay prints, in order', () => {
    expect(replayed.map((n) => `${n.at} ${n.kind} ${n.rule}`)).toEqual([
      expect.stringMatching(/ticket webhook-latency-tax$/),
      '2019-03-04T09:31:00Z page webhook-blackhole',
      // Half the nodes NotReady, after minutes of climbing, then the repair storm: two symptoms, a minute apart.
      '2019-03-04T09:42:00Z update webhook-blackhole',
      '2019-03-04T09:43:00Z update webhook-blackhole',
      expect.stringMatching(/resolve webhook-blackhole$/),
      // The trimmed scenario has under an hour of node history, and a fifth of the cluster was replaced within half
      // an hour: repairs the outage caused, which its page named, and never a node-churn ticket once it resolves.
      expect.stringMatching(/resolve webhook-latency-tax$/),
    ]);
    expect(sent().map((n) => n.id)).toEqual(replayed.map((n) => n.id));
  });

  it('routes pages and their updates to the paging topic and tickets to the notice topic', () => {
    const topics = published().map((p) => [JSON.parse(p.body.default ?? '{}').kind, p.topicArn]);
    expect(topics).toEqual([
      ['ticket', harness.topics.notice],
      ['page', harness.topics.paging],
      ['update', harness.topics.paging],
      ['update', harness.topics.paging],
      ['resolve', harness.topics.paging],
      ['resolve', harness.topics.notice],
    ]);
  });

  it('sends a well-formed body for every protocol', () => {
    for (const message of published()) {
      expect(message.messageStructure).toBe('json');
      // One body per protocol that differs: SQS and Lambda get `default`, the notification's JSON.
      expect(Object.keys(message.body).sort()).toEqual(['default', 'email', 'https', 'sms']);
      expect(message.body.email).toContain('Runbook: docs/runbooks/');
      expect((message.body.sms ?? '').length).toBeLessThanOrEqual(140);
      const chatbot = JSON.parse(message.body.https ?? '{}');
      expect(chatbot).toMatchObject({ version: '1.0', source: 'custom', content: { textType: 'client-markdown' } });
      expect(chatbot.content.title).toEqual(expect.any(String));
      expect(JSON.parse(message.body.default ?? '{}')).toMatchObject({
        id: expect.any(String),
        kind: expect.any(String),
      });
      expect((message.subject ?? '').length).toBeLessThan(100);
    }
  });

  it('names the cause, the evidence and the hints in the page', () => {
    const page = published().find((p) => p.messageAttributes.kind?.StringValue === 'page');
    const chatbot = JSON.parse(page?.body.https ?? '{}');
    // The configuration names no Region: the cluster is in the Region the poller runs in, which the subject says.
    expect(page?.subject).toBe('[PAGE] Admission webhook is black-holing API writes on dev-euw1 (us-east-1)');
    expect(page?.body.email).toMatch(/webhook\.p99 .* = 10 s, threshold >= 2\.5 s/);
    expect(chatbot.content.nextSteps.join('\n')).toContain(
      'kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations',
    );
  });

  it('links the page to a console graph, in the Region the poller runs in, of metrics the poller read', () => {
    const page = published().find((p) => p.messageAttributes.kind?.StringValue === 'page');
    const [, link] = /Graph of the evidence: (\S+)/.exec(page?.body.email ?? '') ?? [];
    const graph = parseJsurl(link?.split('#metricsV2:graph=')[1] ?? '') as { metrics: unknown[][] };
    const graphed = metricRows(graph).map((row) => row[1]);
    const read = harness.cloudwatch.getMetricDataRequests.flatMap(
      (request) => request.MetricDataQueries?.map((q) => q.MetricStat?.Metric?.MetricName) ?? [],
    );

    expect(link).toMatch(/^https:\/\/us-east-1\.console\.aws\.amazon\.com\/cloudwatch\/home\?region=us-east-1#/);
    expect(graphed).toContain('apiserver_admission_webhook_admission_duration_seconds_VALIDATING_P99');
    expect(graphed.filter((name) => !read.includes(name as string))).toEqual([]);
  });

  it('sets the attributes subscribers filter on', () => {
    const page = published().find((p) => p.messageAttributes.kind?.StringValue === 'page');
    expect(page?.messageAttributes).toEqual({
      severity: { DataType: 'String', StringValue: 'critical' },
      kind: { DataType: 'String', StringValue: 'page' },
      rule: { DataType: 'String', StringValue: 'webhook-blackhole' },
      cluster: { DataType: 'String.Array', StringValue: '["dev-euw1"]' },
    });
  });

  it('reads every signal the rules read, and no other, with one-minute periods and no more than 500 queries a call', () => {
    const requests = harness.cloudwatch.getMetricDataRequests;
    expect(requests).toHaveLength(scenario.steps);
    for (const request of requests) {
      expect(request.MetricDataQueries?.length).toBeLessThanOrEqual(500);
      expect(new Set(request.MetricDataQueries?.map((q) => q.MetricStat?.Period))).toEqual(new Set([60]));
    }
    // 4 write verbs, 3 request totals, 2 webhook totals, 2 webhook latencies, 2 node counts, and webhook failures from
    // the custom namespace; no rule reads the read p99, so its 2 verbs are not requested. Node churn is read from the
    // table, where the node-churn function counts it, not from CloudWatch.
    const names = requests[0]?.MetricDataQueries?.map((q) => q.MetricStat?.Metric?.MetricName);
    expect([names?.length, names?.some((name) => name?.includes('_GET_') || name?.includes('_LIST_'))]).toEqual([
      METRICS_READ,
      false,
    ]);
  });

  it('reports on itself in embedded metric format after every poll, with the dashboard every figure, no idle poll among them', () => {
    const reports = emfLines(output).filter(
      (line) => line._aws.CloudWatchMetrics[0]?.Namespace === 'K8sIncidentSentinel',
    );
    const page = reports.find((r) => r.NotificationsSent === 1 && Number(r.Findings) > 0);

    expect([reports.length, reports.every((r) => r.IdlePolls === 0), page?.Deployment]).toEqual([
      scenario.steps,
      true,
      'test',
    ]);
    expect(page).toMatchObject({
      ClustersPolled: 1,
      MetricsRequested: METRICS_READ,
      Shards: 0,
      NotificationFailures: 0,
    });
    expect(page?._aws.CloudWatchMetrics[0]?.Metrics).toEqual([
      { Name: 'ClustersPolled', Unit: 'Count' },
      { Name: 'MetricsRequested', Unit: 'Count' },
      { Name: 'Shards', Unit: 'Count' },
      { Name: 'Findings', Unit: 'Count' },
      { Name: 'RulesPartial', Unit: 'Count' },
      { Name: 'RulesSkipped', Unit: 'Count' },
      { Name: 'NotificationsSent', Unit: 'Count' },
      { Name: 'NotificationFailures', Unit: 'Count' },
      { Name: 'UnreadableClusters', Unit: 'Count' },
      { Name: 'BlindTripwires', Unit: 'Count' },
      { Name: 'StepsQuarantined', Unit: 'Count' },
      { Name: 'PollDurationMs', Unit: 'Milliseconds' },
      { Name: 'IdlePolls', Unit: 'Count' },
    ]);
  });

  it('gives its metrics Deployment as their only dimension, which the alarms and the dashboard read', () => {
    const dimensions = emfLines(output).flatMap((line) => line._aws.CloudWatchMetrics.map((m) => m.Dimensions));

    expect(dimensions).toHaveLength(scenario.steps);
    expect(new Set(dimensions.map((d) => JSON.stringify(d)))).toEqual(new Set(['[["Deployment"]]']));
  });
});

describe('the digest Lambda over the real wire', () => {
  let digest: DigestHandler;
  let summary: DigestSummary;

  beforeAll(async () => {
    digest = (await import('../../functions/digest/handler.ts')).handler as unknown as DigestHandler;
    arriveAt(Date.parse(NEXT_MONDAY) + 3_000);
    summary = await digest({ kind: 'digest', scheduledTime: NEXT_MONDAY }, contextFor());
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

    // One body per protocol that differs: email gets `default`, the digest's text.
    expect(Object.keys(body).sort()).toEqual(['default', 'https', 'lambda', 'sms', 'sqs']);
    expect(JSON.parse(body.lambda ?? '{}')).toEqual(sentDigest());
    expect(JSON.parse(body.https ?? '{}')).toMatchObject({ version: '1.0', source: 'custom' });
    expect(wideLines(body.default ?? '')).toEqual([]);
  });

  it('lists the outage as the poller recorded it in DynamoDB', () => {
    expect(sentDigest().incidents.map((i) => [i.rule, i.status, i.openedAt, i.openForMs / 60_000])).toEqual([
      ['webhook-blackhole', 'resolved', '2019-03-04T09:31:00Z', 95],
      ['webhook-latency-tax', 'resolved', expect.any(String), expect.any(Number)],
    ]);
    expect(flowing(onDigestTopic()[0]?.body.default ?? '')).toContain(
      'Opened 2019-03-04 09:31, resolved after 1 h 35 min; 4 notifications this week.',
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
    expect(sentDigest().pipeline).toMatchObject({ notificationsSent: 6, notificationsPending: 0, retried: [] });
  });

  it('says so in the subject when the week had no poll at all', async () => {
    arriveAt(Date.parse('2019-03-18T09:00:03Z'));
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

// Last: a retried poll is recorded as a poll, and the digest above counts polls.
describe('the poller over the real wire, after the digest', () => {
  it('does nothing more when a poll is retried after it succeeded', async () => {
    const before = harness.sns.published.length;
    const last = scenario.start + (scenario.steps - 1) * 60_000;
    const summary = await pollAt(poll, last);
    expect(summary.claim).toBe('done');
    expect(harness.sns.published).toHaveLength(before);
  });
});
