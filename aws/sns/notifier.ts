import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { type Notification, topicOf } from '../../shared/engine/notification.ts';
import { snsMessage } from '../../shared/notify/fit-message.ts';
import { renderMessage } from '../../shared/notify/message-bodies.ts';
import type { Notifier } from '../../shared/pipeline/ports.ts';

export interface NotifierTopics {
  /** Pages, and the updates and resolves of page-level incidents. */
  readonly paging: string;
  /** Tickets, and their updates and resolves. */
  readonly notice: string;
}

/** What this module sends: one publish per notification. */
export const IAM_ACTIONS = ['sns:Publish'] as const;

/**
 * Publishes a notification with one body per protocol and the attributes subscribers filter on, all of it within
 * SNS's message limit (shared/notify/message-bodies.ts says what is cut and how a filter policy still matches).
 */
export class SnsNotifier implements Notifier {
  constructor(
    private readonly client: SNSClient,
    private readonly topics: NotifierTopics,
  ) {}

  topicFor(notification: Notification): string {
    return this.topics[topicOf(notification)];
  }

  async publish(notification: Notification): Promise<{ messageId: string }> {
    const { subject, bodies, attributes } = renderMessage(notification);
    const answer = await this.client.send(
      new PublishCommand({
        TopicArn: this.topicFor(notification),
        Subject: subject,
        MessageStructure: 'json',
        Message: snsMessage(bodies),
        MessageAttributes: attributes,
      }),
    );
    return { messageId: answer.MessageId ?? '' };
  }
}
