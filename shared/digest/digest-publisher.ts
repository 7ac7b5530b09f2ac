import type { RenderedMessage } from '../notify/fit-message.ts';

/** Sends the weekly digest to whoever subscribed to it; its attributes name the ISO week it reports on. */
export interface DigestPublisher {
  publish(message: RenderedMessage): Promise<{ messageId: string }>;
}
