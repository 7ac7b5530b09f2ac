import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import * as z from 'zod';
import { notificationSchema } from '../../aws/dynamodb/table-items.ts';
import { type DeliveryDeps, deliverNotification } from '../../shared/delivery/deliver.ts';
import { pipelineAlarmNotification } from '../../shared/delivery/pipeline-alarm.ts';
import { incidentKey } from '../../shared/delivery/vendor-messages.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { SentinelError } from '../../shared/errors.ts';
import { clusterCount } from '../../shared/notify/notification-text.ts';

/** An SQS message that is not a notification: something other than the poller published to the paging topic. */
export class NotANotificationError extends SentinelError {}

export interface DeliverBatchDeps extends DeliveryDeps {
  readonly logger: Pick<Logger, 'info' | 'error'>;
}

/**
 * The EventBridge event of a pipeline alarm's state change, as the PipelineAlarms rule puts it in the queue
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch-and-eventbridge.html).
 */
const alarmStateSchema = z.object({
  value: z.enum(['OK', 'ALARM', 'INSUFFICIENT_DATA']),
  reason: z.string().optional(),
  timestamp: z.string().refine((text) => !Number.isNaN(Date.parse(text)), { error: 'expected a time' }),
});
const alarmStateChangeEventSchema = z.object({
  'detail-type': z.literal('CloudWatch Alarm State Change'),
  account: z.string(),
  region: z.string(),
  detail: z.object({
    alarmName: z.string().min(1),
    configuration: z.object({ description: z.string().optional() }).optional(),
    state: alarmStateSchema,
    previousState: alarmStateSchema.optional(),
  }),
});

/**
 * Deliver a batch of the paging topic's notifications (raw message delivery: each SQS body is the notification
 * JSON, SNS's `sqs` body), and of the pipeline alarms' state changes (EventBridge events), to PagerDuty, Opsgenie and
 * Jira Service Management. Notifications of one incident go one after another in the order
 * they were raised, incidents side by side. A record that fails is reported alone (ReportBatchItemFailures), so SQS
 * redelivers it and not its batch; after the queue's maxReceiveCount it goes to the dead-letter queue, which pages.
 */
export async function deliverBatch(deps: DeliverBatchDeps, records: readonly SQSRecord[]): Promise<SQSBatchResponse> {
  const failures: string[] = [];
  const byIncident = new Map<string, (ParsedRecord & { record: SQSRecord })[]>();
  for (const record of records) {
    try {
      const parsed = parseRecord(record);
      if (parsed === undefined) {
        deps.logger.info('an alarm state change that pages no one', { messageId: record.messageId });
        continue;
      }
      const key = incidentKey(parsed.notification);
      byIncident.set(key, [...(byIncident.get(key) ?? []), { record, ...parsed }]);
    } catch (error) {
      deps.logger.error('not a notification; left for the dead-letter queue', { messageId: record.messageId, error });
      failures.push(record.messageId);
    }
  }
  await Promise.all(
    [...byIncident.values()].map(async (entries) => {
      entries.sort((a, b) => a.notification.at.localeCompare(b.notification.at));
      for (const { record, notification, clustersOmitted } of entries) {
        try {
          const delivered = await deliverNotification(notification, deps, clustersOmitted);
          deps.logger.info('delivered', { notification: notification.id, kind: notification.kind, delivered });
        } catch (error) {
          deps.logger.error('delivery failed; SQS redelivers it', { notification: notification.id, error });
          failures.push(record.messageId);
        }
      }
    }),
  );
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}

interface ParsedRecord {
  readonly notification: Notification;
  /** The notification was cut to fit SNS's limit: its body says how many clusters it does not name. */
  readonly clustersOmitted: boolean;
}

/** A notification, a pipeline alarm's page or resolve, or undefined for an alarm state change that pages no one. */
function parseRecord(record: SQSRecord): ParsedRecord | undefined {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    throw new NotANotificationError(`message ${record.messageId} is not JSON`);
  }
  if ((body as Record<string, unknown> | null)?.['detail-type'] !== undefined) return parseAlarmEvent(record, body);
  const parsed = notificationSchema.safeParse(body);
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => `$.${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new NotANotificationError(`message ${record.messageId} is not a notification: ${where}`);
  }
  // Messages published before `clustersTotal` say the count only in `omitted`.
  const omitted = (body as { omitted?: { clusters?: unknown; of?: unknown } }).omitted;
  const total = parsed.data.clustersTotal ?? (typeof omitted?.of === 'number' ? omitted.of : undefined);
  const notification = total === undefined ? parsed.data : { ...parsed.data, clustersTotal: total };
  return { notification, clustersOmitted: clusterCount(notification) > notification.clusters.length };
}

function parseAlarmEvent(record: SQSRecord, body: unknown): ParsedRecord | undefined {
  const parsed = alarmStateChangeEventSchema.safeParse(body);
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => `$.${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new NotANotificationError(`message ${record.messageId} is not an alarm state change: ${where}`);
  }
  const { account, region, detail } = parsed.data;
  const notification = pipelineAlarmNotification({
    alarmName: detail.alarmName,
    account,
    region,
    ...(detail.configuration?.description !== undefined && { description: detail.configuration.description }),
    state: detail.state,
    ...(detail.previousState && { previousState: detail.previousState }),
  });
  return notification && { notification, clustersOmitted: false };
}
