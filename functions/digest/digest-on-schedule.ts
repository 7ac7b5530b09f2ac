import type { Logger } from '@aws-lambda-powertools/logger';
import * as z from 'zod';
import { digestOfWeek, type StoreDigestInput } from '../../shared/digest/digest-of-week.ts';
import type { DigestPublisher } from '../../shared/digest/digest-publisher.ts';
import { weekEndedBefore } from '../../shared/digest/iso-week.ts';
import { renderDigest } from '../../shared/digest/render-digest.ts';
import { publishBytes } from '../../shared/notify/fit-message.ts';
import { eventTime } from '../../shared/pipeline/event-time.ts';

export const digestEventSchema = z.object({
  kind: z.literal('digest'),
  scheduledTime: z.iso.datetime({ offset: true, error: 'expected the schedule time as ISO-8601' }),
});
export type DigestEvent = z.infer<typeof digestEventSchema>;

export interface DigestSummary {
  readonly week: string;
  readonly subject: string;
  readonly messageId: string;
  readonly bytes: number;
  readonly truncated?: string;
}

export interface ScheduledDigestDependencies extends StoreDigestInput {
  /** The deployed configuration: its time zone says when the week ends. */
  readonly config: NonNullable<StoreDigestInput['config']>;
  readonly publisher: DigestPublisher;
  readonly now: () => number;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
}

/**
 * The digest's use case: report on the last whole week before the schedule time, in the team's time zone. A retried
 * invocation carries the same schedule time, so it reports on the same week.
 */
export async function digestOnSchedule(deps: ScheduledDigestDependencies, event: DigestEvent): Promise<DigestSummary> {
  const scheduledAt = eventTime('$.scheduledTime', event.scheduledTime, deps.now());
  const week = weekEndedBefore(scheduledAt, deps.config.digest.timeZone);
  const digest = await digestOfWeek(deps, week);
  const message = renderDigest(digest);
  const { messageId } = await deps.publisher.publish(message);
  const summary = {
    week: week.label,
    subject: message.subject,
    messageId,
    bytes: publishBytes(message),
    ...(message.truncated && { truncated: message.truncated }),
  };
  deps.logger[message.truncated ? 'warn' : 'info']('digest sent', { ...summary });
  return summary;
}
