import { PROTOCOL_LIMITS } from './protocol-limits.ts';

/**
 * What one SNS Publish may carry, and how a notification or a digest too large for it is cut to fit.
 *
 * SNS counts the message and every message attribute (its name, its data type and its value) against one limit of
 * 256 KiB (protocol-limits.ts). The subject is counted here too: it is less than 100 bytes, and a request measured
 * with it never reaches a limit that might count it.
 */

/** SNS subjects: printable ASCII, less than 100 characters (Publish API, `Subject`). */
export const SUBJECT_LIMIT: number = PROTOCOL_LIMITS.sns.subject.max;
export const MESSAGE_LIMIT_BYTES: number = PROTOCOL_LIMITS.sns.message.max;

/** The message for every protocol, as SNS `MessageStructure: json` wants it. */
export interface MessageBodies {
  readonly default: string;
  readonly email: string;
  readonly sms: string;
  readonly https: string;
  readonly sqs: string;
  readonly lambda: string;
}

/** A message attribute as the Publish API takes it; filter policies match String and String.Array attributes. */
export interface MessageAttribute {
  readonly DataType: 'String' | 'String.Array' | 'Number';
  readonly StringValue: string;
}

export type MessageAttributes = Readonly<Record<string, MessageAttribute>>;

/** Everything a Publish request carries that counts against the limit. */
export interface RenderedMessage {
  readonly subject: string;
  readonly bodies: MessageBodies;
  readonly attributes: MessageAttributes;
  /** What was cut to fit the limit, if anything; the message says it too. */
  readonly truncated?: string;
}

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/**
 * The SNS message of the bodies: `default`, and each protocol's body only where it differs from `default` (SNS sends
 * `default` to a protocol the message does not name), so no body travels twice.
 */
export function snsMessage(bodies: MessageBodies): string {
  const distinct = Object.fromEntries(
    Object.entries(bodies).filter(([protocol, body]) => protocol === 'default' || body !== bodies.default),
  );
  return JSON.stringify(distinct);
}

/** The bytes SNS counts for one Publish: subject, message (the JSON of the distinct bodies) and attributes. */
export function publishBytes(message: Omit<RenderedMessage, 'truncated'>): number {
  const attributes = Object.entries(message.attributes).reduce(
    (sum, [name, { DataType, StringValue }]) => sum + utf8(name) + utf8(DataType) + utf8(StringValue),
    0,
  );
  return utf8(message.subject) + utf8(snsMessage(message.bodies)) + attributes;
}

/**
 * The largest `keep` between `least` and `most` whose rendering `fits`, by bisection (renderings list fewer entries
 * as `keep` goes down); undefined when even `least` does not fit.
 */
export function largestFitting<T>(
  render: (keep: number) => T,
  fits: (rendered: T) => boolean,
  range: { readonly least: number; readonly most: number },
): T | undefined {
  const all = render(range.most);
  if (fits(all)) return all;
  let best = render(range.least);
  if (!fits(best)) return undefined;
  // Invariant: `fitting` entries fit, `tooMany` do not.
  let fitting = range.least;
  let tooMany = range.most;
  while (tooMany - fitting > 1) {
    const keep = Math.floor((fitting + tooMany) / 2);
    const candidate = render(keep);
    if (fits(candidate)) {
      fitting = keep;
      best = candidate;
    } else {
      tooMany = keep;
    }
  }
  return best;
}

/**
 * The rendering that keeps the most entries and still fits `limitBytes`: `render(keep)` lists at most `keep` entries
 * of whatever is long (clusters, incidents, ...), and lists fewer as `keep` goes down. Tries everything first, then
 * bisects between `least` and everything. Undefined when even `least` entries do not fit.
 */
export function fitMessage<T extends RenderedMessage>(
  render: (keep: number) => T,
  range: { readonly least: number; readonly most: number },
  limitBytes = MESSAGE_LIMIT_BYTES,
): T | undefined {
  return largestFitting(render, (message) => publishBytes(message) <= limitBytes, range);
}
