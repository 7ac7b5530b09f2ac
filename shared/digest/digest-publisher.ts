import type { RenderedMessage } from '../notify/message-bodies.ts';

/** A rendered digest on its way out: SNS's digest topic when deployed. */
export interface DigestMessage extends RenderedMessage {
  /** The ISO week it reports on, e.g. `2026-W07`: subscribers can filter on it. */
  readonly week: string;
}

/** Sends the weekly digest to whoever subscribed to it. */
export interface DigestPublisher {
  publish(message: DigestMessage): Promise<{ messageId: string }>;
}
