/**
 * What one SNS Publish may carry, and how a notification or a digest too large for it is cut to fit.
 *
 * SNS counts the message and every message attribute (its name, its data type and its value) against one limit of
 * 256 KiB, 262,144 bytes ("Amazon SNS message attributes" and the Publish API's MessageAttributeValue:
 * https://docs.aws.amazon.com/sns/latest/api/API_MessageAttributeValue.html). The subject is counted here too: it is
 * at most 100 bytes, and a request measured with it never reaches a limit that might count it.
 */

/** SNS subjects: at most 100 printable ASCII characters (Publish API, `Subject`). */
export const SUBJECT_LIMIT = 100;
export const MESSAGE_LIMIT_BYTES = 262_144;

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

/** The bytes SNS counts for one Publish: subject, message (the JSON of the bodies) and attributes. */
export function publishBytes(message: Omit<RenderedMessage, 'truncated'>): number {
  const attributes = Object.entries(message.attributes).reduce(
    (sum, [name, { DataType, StringValue }]) => sum + utf8(name) + utf8(DataType) + utf8(StringValue),
    0,
  );
  return utf8(message.subject) + utf8(JSON.stringify(message.bodies)) + attributes;
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
  const fits = (message: T) => publishBytes(message) <= limitBytes;
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
