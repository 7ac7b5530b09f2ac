import type { Logger } from '@aws-lambda-powertools/logger';
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { notificationSchema } from '../../aws/dynamodb/table-items.ts';
import { type DeliveryDeps, deliverNotification } from '../../shared/delivery/deliver.ts';
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
 * Deliver a batch of the paging topic's notifications (raw message delivery: each SQS body is the notification
 * JSON, SNS's `sqs` body) to PagerDuty and Opsgenie. Notifications of one incident go one after another in the order
 * they were raised, incidents side by side. A record that fails is reported alone (ReportBatchItemFailures), so SQS
 * redelivers it and not its batch; after the queue's maxReceiveCount it goes to the dead-letter queue, which pages.
 */
export async function deliverBatch(deps: DeliverBatchDeps, records: readonly SQSRecord[]): Promise<SQSBatchResponse> {
  const failures: string[] = [];
  const byIncident = new Map<string, (ParsedRecord & { record: SQSRecord })[]>();
  for (const record of records) {
    try {
      const parsed = parseNotification(record);
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

function parseNotification(record: SQSRecord): ParsedRecord {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    throw new NotANotificationError(`message ${record.messageId} is not JSON`);
  }
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
