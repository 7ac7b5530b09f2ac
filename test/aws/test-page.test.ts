import { testPageCommand } from '../../cli/test-page-command.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { type CloudFormationServer, startCloudFormationServer } from '../support/cloudformation-server.ts';
import { CapturedCommandOutput } from '../support/command-output.ts';
import {
  type DeliveryHandler,
  type DeliveryHarness,
  LAMBDA_CONTEXT,
  loadDelivery,
  sqsEvent,
  startDeliveryHarness,
  VENDOR_SUBSCRIBERS,
} from '../support/delivery-harness.ts';

let harness: DeliveryHarness;
let cloudformation: CloudFormationServer;
let handler: DeliveryHandler;
const INTEGRATIONS = 'pagerduty:sentinel/pagerduty#routingKey,opsgenie:sentinel/opsgenie';

/**
 * What SNS and SQS do in a deployed stack: every message published to the paging topic reaches the delivery queue
 * (its `sqs` body, raw), and the event source mapping hands it to the delivery function.
 */
function pumpPagingTopic(): () => void {
  let delivered = 0;
  let running = Promise.resolve();
  const timer = setInterval(() => {
    const fresh = harness.aws.sns.published.slice(delivered).filter((m) => m.topicArn === harness.aws.topics.paging);
    delivered = harness.aws.sns.published.length;
    if (fresh.length === 0) return;
    const notifications = fresh.map((m) => JSON.parse(JSON.parse(m.message).default) as Notification);
    running = running.then(() => handler(sqsEvent(notifications), LAMBDA_CONTEXT).then(() => undefined));
  }, 25);
  return () => clearInterval(timer);
}

beforeAll(async () => {
  harness = await startDeliveryHarness();
  cloudformation = await startCloudFormationServer();
  process.env.AWS_ENDPOINT_URL_CLOUDFORMATION = cloudformation.endpoint;
  // Both integrations take only dev-a's notifications: a test page reaches them all the same.
  handler = await loadDelivery([{ name: 'dev-a' }], [{ clusters: ['dev-a'], subscribers: VENDOR_SUBSCRIBERS }]);
});

afterAll(async () => {
  await Promise.all([harness?.close(), cloudformation?.close()]);
});

beforeEach(async () => {
  await harness.reset();
  harness.aws.sns.published.length = 0;
});

function addStack(integrations?: string): void {
  cloudformation.addStack('OpsStack', {
    PagingTopicArn: harness.aws.topics.paging,
    NoticeTopicArn: harness.aws.topics.notice,
    DigestTopicArn: harness.aws.topics.digest,
    TableName: 'sentinel-test',
    ...(integrations && { PagingIntegrations: integrations }),
  });
}

/** Run `sentinel test-page` against the stack while the paging topic feeds the delivery function. */
async function testPageWithDelivery(wait: string, json = false): Promise<{ code: number; out: CapturedCommandOutput }> {
  const stop = pumpPagingTopic();
  const out = new CapturedCommandOutput();
  try {
    const code = await testPageCommand({ stack: 'OpsStack', wait, json }, out, Date.now(), { pollMs: 50 });
    return { code, out };
  } finally {
    stop();
  }
}

describe('sentinel test-page', () => {
  it('opens a test incident at cluster-filtered PagerDuty and Opsgenie integrations, then resolves it, and says what each did', async () => {
    addStack(INTEGRATIONS);
    const { code, out } = await testPageWithDelivery('20');

    expect(code).toBe(0);
    expect(harness.pagerduty.incidents.map((i) => [i.dedupKey, i.status])).toEqual([
      [expect.stringMatching(/^sentinel-test-page\/OpsStack\//), 'resolved'],
    ]);
    expect(harness.opsgenie.alerts.map((a) => [a.message, a.status])).toEqual([
      [expect.stringMatching(/^TEST - k8s-incident-sentinel test page from OpsStack/), 'closed'],
    ]);
    expect(out.stdoutText).toMatch(
      /page published[\s\S]*pagerduty:sentinel\/pagerduty#routingKey: opened[\s\S]*resolve published[\s\S]*opsgenie:sentinel\/opsgenie: closed/,
    );
    const [page, resolve] = harness.aws.sns.published.map((m) => m.subject);
    expect([page, resolve]).toEqual([
      expect.stringMatching(/^\[PAGE\] TEST - /),
      expect.stringMatching(/^\[RESOLVED\] TEST - /),
    ]);
  });

  it('fails, naming the integration, when one never confirms the page', async () => {
    addStack(INTEGRATIONS);
    harness.opsgenie.faults.inject({ kind: 'server-error' });
    const { code, out } = await testPageWithDelivery('5');

    expect(code).toBe(1);
    expect(out.stderrText).toMatch(
      /opsgenie:sentinel\/opsgenie: the test page was not delivered within 5 s; its last attempt failed: Opsgenie create of .* gave up after/,
    );
    expect(out.stderrText).not.toMatch(/pagerduty/);
  });

  it('prints what each integration did as JSON with --json, a failed one with its last error', async () => {
    addStack(INTEGRATIONS);
    harness.opsgenie.faults.inject({ kind: 'server-error' });
    const { code, out } = await testPageWithDelivery('5', true);

    const report = JSON.parse(out.stdoutText);
    expect(code).toBe(1);
    expect(report.confirmed).toBe(false);
    expect(report.page.integrations).toEqual([
      { integration: 'pagerduty:sentinel/pagerduty#routingKey', outcome: 'opened' },
      { integration: 'opsgenie:sentinel/opsgenie', lastError: expect.stringMatching(/^Opsgenie create of .* gave up/) },
    ]);
    expect(report.resolve.integrations[0]).toEqual({
      integration: 'pagerduty:sentinel/pagerduty#routingKey',
      outcome: 'closed',
    });
  });

  it('publishes the page and its resolve through SNS alone for a stack without integrations', async () => {
    addStack();
    const out = new CapturedCommandOutput();

    const code = await testPageCommand({ stack: 'OpsStack' }, out);

    expect(code).toBe(0);
    expect(harness.aws.sns.published.map((m) => JSON.parse(JSON.parse(m.message).default).kind)).toEqual([
      'page',
      'resolve',
    ]);
    expect(out.stdoutText).toMatch(/names no PagerDuty or Opsgenie integration/);
  });
});
