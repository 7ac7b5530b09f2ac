import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import type { Scenario } from '../../shared/scenario/scenario.ts';
import { type AwsHarness, putScenario, startAwsHarness } from '../support/aws-harness.ts';
import { type CapturedOutput, captureOutput } from '../support/captured-output.ts';
import { harnessClusters, loadPoller, type PollHandler, pollAt, trimmedScenario } from '../support/poller-harness.ts';

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

/** Five hours of latent webhook latency before the outage, the outage, the repair loop and the recovery. */
const OPA_FROM_STEP = 4050;
/** Metrics one poll of the cluster requests: those of the signals the default rules read (see the test below). */
const METRICS_READ = 15;

describe('the poller over the real wire', () => {
  let harness: AwsHarness;
  let poll: PollHandler;
  let scenario: Scenario;
  let replayed: readonly Notification[];
  let putCalls: number;

  let output: CapturedOutput;

  beforeAll(async () => {
    output = captureOutput();
    harness = await startAwsHarness();
    scenario = trimmedScenario('scenarios/opa-webhook-outage.json', OPA_FROM_STEP);
    const clusters = harnessClusters(['dev-euw1']);
    putCalls = await putScenario(scenario, clusters);
    // Every cluster every minute, in the poller and in the replay alike, so that the two must agree exactly.
    const everyMinute = { poll: { every: '1m' } };
    poll = await loadPoller(harness, clusters, everyMinute);
    const { config, ruleSet } = loadConfig({ clusters, ...everyMinute }, 'test config');
    replayed = (await replayScenario(scenario, { ruleSet, config })).notifications;
    for (let step = 0; step < scenario.steps; step++) {
      await pollAt(poll, scenario.start + step * 60_000);
    }
  }, 120_000);

  afterAll(async () => {
    output.restore();
    await harness.close();
  });

  const published = () =>
    harness.sns.published.map((p) => ({ ...p, body: JSON.parse(p.message) as Record<string, string> }));
  const sent = () => published().map((p) => JSON.parse(p.body.sqs ?? '{}') as Notification);

  it('loads the scenario through PutMetricData', () => {
    expect(putCalls).toBeGreaterThan(0);
    expect(harness.cloudwatch.calls.PutMetricData).toBe(putCalls);
  });

  it('publishes exactly the notifications the replay prints, in order', () => {
    expect(replayed.map((n) => `${n.at} ${n.kind} ${n.rule}`)).toEqual([
      expect.stringMatching(/ticket webhook-latency-tax$/),
      '2019-03-04T09:31:00Z page webhook-blackhole',
      expect.stringMatching(/update webhook-blackhole$/),
      expect.stringMatching(/resolve webhook-blackhole$/),
      expect.stringMatching(/resolve webhook-latency-tax$/),
    ]);
    expect(sent().map((n) => n.id)).toEqual(replayed.map((n) => n.id));
  });

  it('routes pages and their updates to the paging topic and tickets to the notice topic', () => {
    const topics = published().map((p) => [JSON.parse(p.body.sqs ?? '{}').kind, p.topicArn]);
    expect(topics).toEqual([
      ['ticket', harness.topics.notice],
      ['page', harness.topics.paging],
      ['update', harness.topics.paging],
      ['resolve', harness.topics.paging],
      ['resolve', harness.topics.notice],
    ]);
  });

  it('sends a well-formed body for every protocol', () => {
    for (const message of published()) {
      expect(message.messageStructure).toBe('json');
      expect(Object.keys(message.body).sort()).toEqual(['default', 'email', 'https', 'lambda', 'sms', 'sqs']);
      expect(message.body.email).toContain('Runbook: docs/runbooks/');
      expect((message.body.sms ?? '').length).toBeLessThanOrEqual(140);
      const chatbot = JSON.parse(message.body.https ?? '{}');
      expect(chatbot).toMatchObject({ version: '1.0', source: 'custom', content: { textType: 'client-markdown' } });
      expect(chatbot.content.title).toEqual(expect.any(String));
      expect(JSON.parse(message.body.lambda ?? '{}')).toEqual(JSON.parse(message.body.sqs ?? '{}'));
      expect((message.subject ?? '').length).toBeLessThanOrEqual(100);
    }
  });

  it('names the cause, the evidence and the hints in the page', () => {
    const page = published().find((p) => p.messageAttributes.kind?.StringValue === 'page');
    const chatbot = JSON.parse(page?.body.https ?? '{}');
    expect(page?.subject).toBe('[PAGE] Admission webhook is black-holing API writes on dev-euw1');
    expect(page?.body.email).toMatch(/webhook\.p99 .* = 10 s, threshold >= 2\.5 s/);
    expect(chatbot.content.nextSteps.join('\n')).toContain(
      'kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations',
    );
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
    // 4 write verbs, 3 request totals, 2 webhook totals, 2 webhook latencies, 2 node counts, 1 node group, and webhook
    // failures from the custom namespace; no rule reads the read p99, so its 2 verbs are not requested.
    const names = requests[0]?.MetricDataQueries?.map((q) => q.MetricStat?.Metric?.MetricName);
    expect([names?.length, names?.some((name) => name?.includes('_GET_') || name?.includes('_LIST_'))]).toEqual([
      METRICS_READ,
      false,
    ]);
  });

  it('reports on itself in embedded metric format after every poll, with a heartbeat', () => {
    const reports = emfLines(output).filter(
      (line) => line._aws.CloudWatchMetrics[0]?.Namespace === 'K8sIncidentSentinel',
    );
    const page = reports.find((r) => r.NotificationsSent === 1 && Number(r.Findings) > 0);

    expect([reports.length, reports.every((r) => r.Heartbeat === 1), page?.Deployment]).toEqual([
      scenario.steps,
      true,
      'test',
    ]);
    expect(page).toMatchObject({ ClustersPolled: 1, MetricsRequested: METRICS_READ, NotificationFailures: 0 });
    expect(page?._aws.CloudWatchMetrics[0]?.Metrics).toEqual([
      { Name: 'ClustersPolled', Unit: 'Count' },
      { Name: 'MetricsRequested', Unit: 'Count' },
      { Name: 'Findings', Unit: 'Count' },
      { Name: 'RulesPartial', Unit: 'Count' },
      { Name: 'RulesSkipped', Unit: 'Count' },
      { Name: 'NotificationsSent', Unit: 'Count' },
      { Name: 'NotificationFailures', Unit: 'Count' },
      { Name: 'UnreadableClusters', Unit: 'Count' },
      { Name: 'PollDurationMs', Unit: 'Milliseconds' },
      { Name: 'Heartbeat', Unit: 'Count' },
    ]);
  });

  it('gives its metrics Deployment as their only dimension, which the alarms and the dashboard read', () => {
    const dimensions = emfLines(output).flatMap((line) => line._aws.CloudWatchMetrics.map((m) => m.Dimensions));

    expect(dimensions).toHaveLength(scenario.steps);
    expect(new Set(dimensions.map((d) => JSON.stringify(d)))).toEqual(new Set(['[["Deployment"]]']));
  });

  it('does nothing more when a poll is retried after it succeeded', async () => {
    const before = harness.sns.published.length;
    const last = scenario.start + (scenario.steps - 1) * 60_000;
    const summary = await pollAt(poll, last);
    expect(summary.claim).toBe('done');
    expect(harness.sns.published).toHaveLength(before);
  });
});
