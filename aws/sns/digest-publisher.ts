import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { DigestPublisher } from '../../shared/digest/digest-publisher.ts';
import { type RenderedMessage, snsMessage } from '../../shared/notify/fit-message.ts';

/** What this module sends: one publish per digest. */
export const IAM_ACTIONS = ['sns:Publish'] as const;

/** Publishes the digest to the digest topic, one body per protocol, with attributes subscribers can filter on. */
export class SnsDigestPublisher implements DigestPublisher {
  constructor(
    private readonly client: SNSClient,
    private readonly topicArn: string,
  ) {}

  async publish(message: RenderedMessage): Promise<{ messageId: string }> {
    const answer = await this.client.send(
      new PublishCommand({
        TopicArn: this.topicArn,
        Subject: message.subject,
        MessageStructure: 'json',
        Message: snsMessage(message.bodies),
        MessageAttributes: message.attributes,
      }),
    );
    return { messageId: answer.MessageId ?? '' };
  }
}
