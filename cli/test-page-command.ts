import { snsClient } from '../aws/clients.ts';
import { SnsNotifier } from '../aws/sns-notifier.ts';
import { testPage } from '../shared/notify/test-page.ts';
import { type CommandOutput, UsageError } from './command.ts';
import { defineCommand } from './command-line.ts';
import { stackOutputs } from './stack-outputs.ts';

export const TEST_PAGE_COMMAND = defineCommand({
  name: 'test-page',
  summary: "publish a clearly marked test page through a deployed stack's paging topic",
  usage: ['sentinel test-page --stack NAME'],
  options: {
    stack: { type: 'string', value: 'NAME', description: 'the deployed OpsStack whose paging topic to publish to' },
  },
  notes: ['Uses the default AWS credential chain (AWS_PROFILE, AWS_REGION, ...).'],
  run: (values, _, out) => testPageCommand(values, out),
});

/** Publish a clearly marked test page through the deployed paging topic, end to end. */
export async function testPageCommand(
  options: { stack?: string },
  out: CommandOutput,
  now = Date.now(),
): Promise<number> {
  if (!options.stack) throw new UsageError('--stack is required');
  const outputs = await stackOutputs(options.stack);
  const notifier = new SnsNotifier(snsClient(), { paging: outputs.PagingTopicArn, notice: outputs.NoticeTopicArn });
  const { messageId } = await notifier.publish(testPage(now, options.stack));
  out.stdout(
    `Test page published to ${outputs.PagingTopicArn} (message ${messageId}). Check that on-call received it.`,
  );
  return 0;
}
