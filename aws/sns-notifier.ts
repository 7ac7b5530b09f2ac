import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { Notification } from '../shared/engine/notification.ts';
import { renderMessage } from '../shared/notify/message-bodies.ts';
import type { Notifier } from '../shared/pipeline/ports.ts';

export interface NotifierTopics {
  /** Pages, and the updates and resolves of page-level incidents. */
  readonly paging: string;
  /** Tickets, and their updates and resolves. */
  readonly notice: string;
}

/** What this module sends: one publish per notification. */
export const IAM_ACTIONS = ['sns:Publish'] as const;

/**
 * Publishes a notification with one body per protocol and the attributes subscribers filter on. `cluster` is a
 * String.Array, so a filter policy on one cluster also matches a notification that groups several.
 */
export class SnsNotifier implements Notifier {
  constructor(
    private readonly client: SNSClient,
    private readonly topics: NotifierTopics,
  ) {}

  topicFor(notification: Notification): string {
    return notification.severity === 'critical' ? this.topics.paging : this.topics.notice;
  }

  async publish(notification: Notification): Promise<{ messageId: string }> {
    const { subject, bodies } = renderMessage(notification);
    const text = (value: string) => ({ DataType: 'String', StringValue: value });
    const answer = await this.client.send(
      new PublishCommand({
        TopicArn: this.topicFor(notification),
        Subject: subject,
        MessageStructure: 'json',
        Message: JSON.stringify(bodies),
        MessageAttributes: {
          severity: text(notification.severity),
          kind: text(notification.kind),
          rule: text(notification.rule),
          cluster: { DataType: 'String.Array', StringValue: JSON.stringify(notification.clusters) },
        },
      }),
    );
    return { messageId: answer.MessageId ?? '' };
  }
}
