import { documentClient, snsClient } from '../aws/clients.ts';
import { DynamoDbNodeChurnReader } from '../aws/dynamodb/node-churn-reader.ts';
import { dynamoDbStores } from '../aws/dynamodb/stores.ts';
import { DynamoDbTable } from '../aws/dynamodb/table.ts';
import { SnsNotifier } from '../aws/sns/notifier.ts';
import { readConfigFile } from '../io/input-files.ts';
import { NodeChurnMetricSource } from '../shared/churn/churn-metric-source.ts';
import type { Notification } from '../shared/engine/notification.ts';
import { renderNotification } from '../shared/notify/render-notification.ts';
import { configuredPlan } from '../shared/pipeline/build-plan.ts';
import { memoryStores } from '../shared/pipeline/memory-stores.ts';
import { runPoll } from '../shared/pipeline/poll.ts';
import { stepForSchedule } from '../shared/pipeline/poll-time.ts';
import type { MetricSource, Notifier, PipelineStores } from '../shared/pipeline/ports.ts';
import { metricSourceFor, throwIfUnreadable } from './cloudwatch-history.ts';
import { type CommandOutput, UsageError } from './command.ts';
import { defineCommand } from './command-line.ts';
import { stackOutputs } from './stack-outputs.ts';

export const POLL_COMMAND = defineCommand({
  name: 'poll',
  summary: 'run one poll against CloudWatch from this machine, printing or publishing what it finds',
  usage: ['sentinel poll --once --config FILE (--dry-run | --stack NAME)'],
  options: {
    once: { type: 'boolean', description: 'poll once and exit (required: there is no loop)' },
    config: { type: 'string', value: 'FILE', description: 'the deployment configuration whose clusters to read' },
    'dry-run': { type: 'boolean', description: 'start from a clean state and print instead of publishing' },
    stack: {
      type: 'string',
      value: 'NAME',
      description: "use the deployed stack's table and topics, and publish for real",
    },
  },
  notes: ['Uses the default AWS credential chain (AWS_PROFILE, AWS_REGION, ...).'],
  run: ({ 'dry-run': dryRun, ...values }, _, out) => pollCommand({ ...values, dryRun }, out),
});

/** Prints what would have been published. */
class PrintingNotifier implements Notifier {
  constructor(private readonly out: CommandOutput) {}

  async publish(notification: Notification) {
    for (const line of renderNotification(notification)) this.out.stdout(line);
    return { messageId: 'dry-run' };
  }
}

/**
 * One poll against real AWS from a laptop, with the default credential chain. A dry run starts from a clean state
 * and prints instead of publishing; otherwise it uses the deployed stack's table and topics, like the Lambda.
 */
export async function pollCommand(
  options: { once: boolean; config?: string; dryRun: boolean; stack?: string },
  out: CommandOutput,
  now = Date.now(),
): Promise<number> {
  if (!options.once) throw new UsageError('only single polls are supported: add --once');
  if (!options.config) throw new UsageError('--config is required');
  if (options.dryRun === Boolean(options.stack)) {
    throw new UsageError(
      `give either --dry-run (print, touch nothing) or --stack NAME (poll for real), not ${options.dryRun ? 'both' : 'neither'}`,
    );
  }
  const loaded = readConfigFile(options.config);
  const { config } = loaded;
  const plan = configuredPlan(loaded);
  let stores: PipelineStores;
  let notifier: Notifier;
  let metrics: MetricSource = metricSourceFor(config.clusters);
  if (options.stack) {
    const outputs = await stackOutputs(options.stack);
    const table = { client: documentClient(), table: outputs.TableName, now: Date.now };
    stores = dynamoDbStores(table);
    // Node churn is counted into the stack's table by its node-churn function, as the poller reads it.
    const churn = new DynamoDbNodeChurnReader(new DynamoDbTable(table));
    metrics = new NodeChurnMetricSource(metrics, churn, config.clusters, plan.ruleSet.signals());
    notifier = new SnsNotifier(snsClient(), { paging: outputs.PagingTopicArn, notice: outputs.NoticeTopicArn });
  } else {
    stores = memoryStores(Date.now);
    notifier = new PrintingNotifier(out);
  }
  const at = stepForSchedule(now, config.poll.ingestionLag, plan.stepSeconds);
  out.stderr(`Polling ${plan.clusters.length} cluster(s) for the minute starting ${new Date(at).toISOString()}...`);
  const report = await runPoll(
    {
      plan,
      metrics,
      ...stores,
      notifier,
      // A one-off poll reads every cluster, so no tripwire state is needed.
      tripwires: { armed: async () => ({ byAlarm: new Set(), byNodeChurn: new Set() }) },
      pollEveryCluster: true,
      owner: `cli-${process.pid}`,
      now: Date.now,
      leaseMs: 60_000,
    },
    at,
  );
  throwIfUnreadable(report.unreadable);
  for (const cluster of plan.clusters) {
    const findings = report.findings.filter((f) => f.cluster === cluster.name);
    const of = (verdict: string) => findings.filter((f) => f.verdict === verdict).map((f) => f.rule);
    out.stdout(
      `${cluster.name}: firing [${of('met').join(', ')}], unknown [${of('unknown').join(', ')}], skipped [${of('skipped').join(', ')}]`,
    );
  }
  out.stdout(
    `${report.metricsRequested} metrics requested; ${report.created.length} notification(s) created, ${report.delivered.length} ${options.dryRun ? 'printed' : 'published'}, ${report.failed.length} failed.`,
  );
  for (const failure of report.failed) out.stderr(`publish failed for ${failure.id}: ${failure.error}`);
  return report.failed.length > 0 ? 1 : 0;
}
