/**
 * What each protocol a notification reaches documents that it takes, as numbers with their source: the renderers cut
 * to these (message-bodies.ts, shared/delivery/vendor-messages.ts), the benchmark reports each body beside its limit,
 * and test/notify/protocol-limits.test.ts throws fleets of 1 to 10,000 clusters at every renderer and checks each one.
 */
export interface DocumentedLimit {
  /** The largest allowed value: `less than 100` is 99. */
  readonly max: number;
  readonly unit: 'characters' | 'bytes' | 'items';
  /** The page that documents it. */
  readonly source: string;
}

const SNS_PUBLISH = 'https://docs.aws.amazon.com/sns/latest/api/API_Publish.html';
const SNS_ATTRIBUTES = 'https://docs.aws.amazon.com/sns/latest/api/API_MessageAttributeValue.html';
const SNS_SMS = 'https://docs.aws.amazon.com/sns/latest/dg/sms_publish-to-phone.html';
const PAGERDUTY_TRIGGER = 'https://developer.pagerduty.com/docs/events-API-v2/trigger-events/';
const OPSGENIE_ALERT_API = 'https://docs.opsgenie.com/docs/alert-api';
const OPSGENIE_FIELDS = 'https://docs.opsgenie.com/docs/alerts-and-alert-fields';
const SLACK_BLOCKS = 'https://api.slack.com/reference/block-kit/blocks';
/** A secondary source: the only page found that gives Opsgenie's total for `details` (see `opsgenie.details`). */
const OPSGENIE_DETAILS_SECONDARY =
  'https://metainf.atlassian.net/wiki/pages/diffpages.action?originalId=2495480226&pageId=2510815273';

export const PROTOCOL_LIMITS = {
  sns: {
    /**
     * The whole Publish: message and every attribute's name, type and value count against 256 KiB; the subject is
     * counted too, so that a limit that might count it is never reached.
     */
    message: { max: 262_144, unit: 'bytes', source: SNS_ATTRIBUTES },
    /** "Constraints: Subjects must be ASCII text that begins with a letter, number, or punctuation mark; must not
     * include line breaks or control characters; and must be less than 100 characters long." */
    subject: { max: 99, unit: 'characters', source: SNS_PUBLISH },
  },
  sms: {
    /** One SMS message carries up to 140 bytes; the body is printable ASCII, so 140 characters. */
    message: { max: 140, unit: 'bytes', source: SNS_SMS },
  },
  pagerduty: {
    summary: { max: 1024, unit: 'characters', source: PAGERDUTY_TRIGGER },
    dedupKey: { max: 255, unit: 'characters', source: PAGERDUTY_TRIGGER },
    /** The whole event, as JSON: "The maximum size of the payload is 512 KB". */
    event: { max: 524_288, unit: 'bytes', source: PAGERDUTY_TRIGGER },
  },
  opsgenie: {
    message: { max: 130, unit: 'characters', source: OPSGENIE_FIELDS },
    alias: { max: 512, unit: 'characters', source: OPSGENIE_FIELDS },
    entity: { max: 512, unit: 'characters', source: OPSGENIE_FIELDS },
    description: { max: 15_000, unit: 'characters', source: OPSGENIE_ALERT_API },
    /**
     * Custom properties: 8,000 characters in total, keys and values. No primary source: Opsgenie's own Alert API and
     * "Alerts and Alert Fields" pages give lengths for message, alias, entity, description and tags but none for
     * `details`; the number is from a third-party integration's documentation that quotes the Alert API's table
     * ("Map of key-value pairs to use as custom properties of the alert. 8 000 characters total"). It is held as the
     * safer reading, since a larger total, if Opsgenie takes one, only loses cluster names to the email.
     */
    details: { max: 8000, unit: 'characters', source: OPSGENIE_DETAILS_SECONDARY },
    tags: { max: 20, unit: 'items', source: OPSGENIE_FIELDS },
    tag: { max: 50, unit: 'characters', source: OPSGENIE_FIELDS },
    note: { max: 25_000, unit: 'characters', source: OPSGENIE_ALERT_API },
  },
  /**
   * AWS Chatbot's custom-notification schema (https://docs.aws.amazon.com/chatbot/latest/adminguide/custom-notifs.html)
   * gives no length for its fields, and no other AWS page does (its API reference documents lengths only for custom
   * actions, not notifications): there is no primary source for them. Chatbot posts them to Slack as Block Kit blocks,
   * whose limits are Slack's own, primary for what Slack shows: a header's text at most 150 characters, a section's
   * text at most 3,000. A longer field is cut by Slack or refused, so the renderer holds Slack's numbers.
   */
  chatbot: {
    title: { max: 150, unit: 'characters', source: SLACK_BLOCKS },
    description: { max: 3000, unit: 'characters', source: SLACK_BLOCKS },
    nextStep: { max: 3000, unit: 'characters', source: SLACK_BLOCKS },
    nextSteps: { max: 5, unit: 'items', source: SLACK_BLOCKS },
  },
} as const satisfies Record<string, Record<string, DocumentedLimit>>;

/**
 * Characters each protocol gives a meaning of its own: Slack reads `<`, `>` and `&` as the start of a link, a mention
 * or an entity ("Escaping text", https://api.slack.com/reference/surfaces/formatting#escaping), so text meant as text
 * must carry `&lt;`, `&gt;` and `&amp;`; SNS subjects and SMS bodies are printable ASCII on one line.
 */
export const SLACK_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
