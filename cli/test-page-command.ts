import { setTimeout as sleep } from 'node:timers/promises';
import { documentClient, snsClient } from '../aws/clients.ts';
import { DynamoDbDeliveryLedger } from '../aws/dynamodb/delivery-ledger.ts';
import { SnsNotifier } from '../aws/sns/notifier.ts';
import type { DeliveryOutcome } from '../shared/delivery/deliver.ts';
import type { Notification } from '../shared/engine/notification.ts';
import { testPage, testResolve } from '../shared/notify/test-page.ts';
import { type CommandOutput, UsageError } from './command.ts';
import { defineCommand } from './command-line.ts';
import { stackOutputs } from './stack-outputs.ts';

const DEFAULT_WAIT_SECONDS = 120;

/** What an outcome means at the tool, as the delivery function confirmed it (Opsgenie: the request's status). */
const DONE: Partial<Record<DeliveryOutcome, string>> = {
  opened: ' (the tool accepted the page and opened the test incident)',
  closed: ' (the tool closed the test incident)',
};

export const TEST_PAGE_COMMAND = defineCommand({
  name: 'test-page',
  summary: 'page through every integration of a deployed stack, then resolve the test incident',
  usage: ['sentinel test-page --stack NAME [--wait SECONDS] [--json]'],
  options: {
    stack: { type: 'string', value: 'NAME', description: 'the deployed OpsStack whose paging topic to publish to' },
    wait: {
      type: 'string',
      value: 'SECONDS',
      description: `how long to wait for PagerDuty and Opsgenie to take each step (default ${DEFAULT_WAIT_SECONDS})`,
    },
    json: {
      type: 'boolean',
      description: 'print what each integration did with the page and the resolve as JSON instead of text',
    },
  },
  notes: [
    'Publishes a test page to the paging topic, which reaches the email, SMS and Chatbot subscribers through SNS and',
    'every PagerDuty and Opsgenie integration, cluster-filtered ones included, through the delivery function; waits',
    'until the function recorded what each of them did (Opsgenie: once its request was processed), publishes the',
    'resolve, and waits again. Exits 1 when an integration did not confirm a step in time, with its last error.',
    'Uses the default AWS credential chain (AWS_PROFILE, AWS_REGION, ...).',
  ],
  run: (values, _, out) => testPageCommand(values, out),
});

/** How often the delivery records are read while waiting. */
export interface TestPageTiming {
  readonly pollMs: number;
}

/**
 * Prove the paging path both ways: a clearly marked test page through the deployed paging topic, confirmed at every
 * PagerDuty and Opsgenie integration the stack names, then its resolve, confirmed the same way.
 */
/** What one step (the page, or its resolve) did at each integration, as `--json` prints it. */
interface StepReport {
  readonly notification: string;
  readonly messageId: string | undefined;
  readonly integrations: { integration: string; outcome?: DeliveryOutcome; lastError?: string }[];
}

export async function testPageCommand(
  options: { stack?: string; wait?: string; json?: boolean },
  out: CommandOutput,
  now = Date.now(),
  timing: TestPageTiming = { pollMs: 2000 },
): Promise<number> {
  if (!options.stack) throw new UsageError('--stack is required');
  const waitSeconds = options.wait === undefined ? DEFAULT_WAIT_SECONDS : Number(options.wait);
  if (!Number.isInteger(waitSeconds) || waitSeconds < 0 || waitSeconds > 900) {
    throw new UsageError(`--wait must be a whole number of seconds from 0 to 900, got "${options.wait}"`);
  }
  const outputs = await stackOutputs(options.stack);
  const notifier = new SnsNotifier(snsClient(), { paging: outputs.PagingTopicArn, notice: outputs.NoticeTopicArn });
  const integrations = (outputs.PagingIntegrations ?? '').split(',').filter((id) => id !== '');
  const ledger = new DynamoDbDeliveryLedger(documentClient(), outputs.TableName);

  const text = (line: string) => {
    if (!options.json) out.stdout(line);
  };
  const reports: Record<string, StepReport> = {};
  /** Publish one step and wait until every integration recorded it; the names of those that did not, in time. */
  const step = async (notification: Notification, what: string): Promise<string[]> => {
    const { messageId } = await notifier.publish(notification);
    text(`Test ${what} published to ${outputs.PagingTopicArn} (message ${messageId}).`);
    const outcomes = new Map<string, DeliveryOutcome>();
    const deadline = Date.now() + waitSeconds * 1000;
    const pending = new Set(integrations);
    /** Why the last attempt at each integration failed, while the delivery function retries it. */
    const failures = new Map<string, string>();
    for (;;) {
      for (const integration of [...pending]) {
        const record = await ledger.outcomeOf(integration, notification.id);
        if (record?.lastError !== undefined) failures.set(integration, record.lastError);
        if (record?.outcome === undefined) continue;
        pending.delete(integration);
        outcomes.set(integration, record.outcome);
        text(`  ${integration}: ${record.outcome}${DONE[record.outcome] ?? ''}`);
      }
      if (pending.size === 0 || Date.now() >= deadline) break;
      await sleep(timing.pollMs);
    }
    for (const integration of pending) {
      const failure = failures.get(integration);
      out.stderr(
        failure === undefined
          ? `  ${integration}: no delivery of the test ${what} recorded within ${waitSeconds} s; see the delivery function's log and its dead-letter queue (docs/deploy.md, PagerDuty and Opsgenie)`
          : `  ${integration}: the test ${what} was not delivered within ${waitSeconds} s; its last attempt failed: ${failure}`,
      );
    }
    reports[what] = {
      notification: notification.id,
      messageId,
      integrations: integrations.map((integration) => {
        const outcome = outcomes.get(integration);
        const lastError = failures.get(integration);
        return { integration, ...(outcome && { outcome }), ...(lastError !== undefined && !outcome && { lastError }) };
      }),
    };
    return [...pending];
  };

  const page = testPage(now, options.stack);
  const unpaged = await step(page, 'page');
  const unresolved = await step(testResolve(page, Math.max(Date.now(), now + 1000)), 'resolve');
  if (options.json)
    out.stdout(JSON.stringify({ ...reports, confirmed: unpaged.length + unresolved.length === 0 }, null, 2));
  text(
    integrations.length === 0
      ? 'The stack names no PagerDuty or Opsgenie integration: check that the email, SMS and Chatbot subscribers received the page and its resolve.'
      : 'Check that the email, SMS and Chatbot subscribers received the page and its resolve too: SNS does not report their delivery.',
  );
  return unpaged.length + unresolved.length > 0 ? 1 : 0;
}
