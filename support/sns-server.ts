/**
 * A loopback fake of SNS topics and publishing that the real @aws-sdk/client-sns talks to unmodified. The installed
 * client speaks awsQuery: form-urlencoded POSTs to `/` carrying `Action=<Operation>&Version=2010-03-31`, with maps
 * flattened to `<Map>.entry.<n>.<field>`. It reads `<Operation>Response/<Operation>Result` XML back, and errors as
 * `<ErrorResponse><Error><Type/><Code/><Message/></Error>` whose Code it maps to its error classes (Throttled to
 * ThrottledException, NotFound to NotFoundException, InvalidParameter to InvalidParameterException, ...).
 */
import { randomUUID } from 'node:crypto';
import { AwsQueryServer, element } from './aws-query-server.ts';
import { type FaultAnswers, type LoopbackServerOptions, ServiceError } from './loopback-server.ts';

/** The account in every ARN the fake hands out. */
export const SNS_ACCOUNT_ID = '000000000000';

const XMLNS = 'http://sns.amazonaws.com/doc/2010-03-31/';
const MAX_MESSAGE_BYTES = 262_144;
const MAX_ATTRIBUTES = 10;
const TOPICS_PER_PAGE = 100;
/** Standard topics only: FIFO topics would also need message groups and deduplication. */
const TOPIC_NAME = /^[A-Za-z0-9_-]{1,256}$/;
/** Printable ASCII of at most 100 characters, not starting with a space. */
const SUBJECT = /^[\x21-\x7e][\x20-\x7e]{0,99}$/;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
/** SNS accepts custom types that extend a base type, like `Number.float` or `String.Array`. */
const ATTRIBUTE_TYPE = /^(String|Number|Binary)(\..+)?$/;
const PROTOCOLS = new Set(['http', 'https', 'email', 'email-json', 'sms', 'sqs', 'application', 'lambda', 'firehose']);

export interface PublishedAttribute {
  DataType: string;
  StringValue?: string;
  BinaryValue?: Uint8Array;
}

export interface PublishedMessage {
  topicArn: string;
  subject?: string;
  message: string;
  messageStructure?: string;
  messageAttributes: Record<string, PublishedAttribute>;
  messageId: string;
  at: Date;
}

export interface Subscription {
  subscriptionArn: string;
  topicArn: string;
  protocol: string;
  endpoint?: string;
}

export interface SnsServerOptions extends LoopbackServerOptions {
  /** The region in the topic ARNs; defaults to us-east-1. */
  region?: string;
}

interface Topic {
  arn: string;
  attributes: Record<string, string>;
}

export async function startSnsServer(options: SnsServerOptions = {}): Promise<SnsServer> {
  return new SnsServer(options).listen();
}

export class SnsServer extends AwsQueryServer {
  protected readonly xmlns = XMLNS;
  readonly region: string;
  /** Every accepted Publish, oldest first. */
  readonly published: PublishedMessage[] = [];
  readonly subscriptions: Subscription[] = [];
  /** By ARN, in creation order, which is the order ListTopics pages through. */
  readonly #topics = new Map<string, Topic>();

  constructor(options: SnsServerOptions = {}) {
    super(options);
    this.region = options.region ?? 'us-east-1';
  }

  topicArn(name: string): string {
    return `arn:aws:sns:${this.region}:${SNS_ACCOUNT_ID}:${name}`;
  }

  /** CreateTopic in-process: idempotent for the same attributes, as in SNS. Returns the topic ARN. */
  createTopic(name: string, attributes: Record<string, string> = {}): string {
    if (!TOPIC_NAME.test(name)) {
      throw invalidParameter('Topic Name');
    }
    const arn = this.topicArn(name);
    const existing = this.#topics.get(arn);
    if (!existing) {
      this.#topics.set(arn, { arn, attributes: { ...attributes } });
    } else if (Object.entries(attributes).some(([key, value]) => existing.attributes[key] !== value)) {
      throw invalidParameter('Attributes Reason: Topic already exists with different attributes');
    }
    return arn;
  }

  /** Back to the state right after start: no topics, messages, subscriptions or faults. */
  override reset(): void {
    super.reset();
    this.#topics.clear();
    this.published.length = 0;
    this.subscriptions.length = 0;
  }

  protected readonly faultAnswers: FaultAnswers = {
    throttle: ['Throttled', 'Rate exceeded', 429],
    'server-error': ['InternalError', 'Internal error (injected fault)', 500],
    unavailable: ['ServiceUnavailable', 'Service unavailable (injected fault)', 503],
  };

  protected run(operation: string, params: URLSearchParams): string {
    switch (operation) {
      case 'CreateTopic':
        return element('TopicArn', this.createTopic(params.get('Name') ?? '', readAttributes(params)));
      case 'ListTopics':
        return this.#listTopics(params.get('NextToken'));
      case 'GetTopicAttributes':
        return this.#getTopicAttributes(params.get('TopicArn'));
      case 'Subscribe':
        return this.#subscribe(params);
      case 'Publish':
        return element('MessageId', this.#publish(params));
      default:
        throw new ServiceError('InvalidAction', `The action ${operation} is not valid for this web service.`);
    }
  }

  #listTopics(nextToken: string | null): string {
    const arns = [...this.#topics.keys()];
    const offset = nextToken ? Number(nextToken) : 0;
    if (!Number.isInteger(offset) || offset < 0 || (nextToken && offset >= arns.length)) {
      throw invalidParameter('NextToken');
    }
    const end = offset + TOPICS_PER_PAGE;
    const members = arns.slice(offset, end).map((arn) => `<member>${element('TopicArn', arn)}</member>`);
    return `<Topics>${members.join('')}</Topics>${end < arns.length ? element('NextToken', String(end)) : ''}`;
  }

  #getTopicAttributes(topicArn: string | null): string {
    const topic = this.#topic(topicArn);
    const attributes = {
      DisplayName: '',
      ...topic.attributes,
      TopicArn: topic.arn,
      Owner: SNS_ACCOUNT_ID,
      SubscriptionsConfirmed: String(this.subscriptions.filter((s) => s.topicArn === topic.arn).length),
      SubscriptionsPending: '0',
      SubscriptionsDeleted: '0',
    };
    const entries = Object.entries(attributes).map(
      ([key, value]) => `<entry>${element('key', key)}${element('value', value)}</entry>`,
    );
    return `<Attributes>${entries.join('')}</Attributes>`;
  }

  #subscribe(params: URLSearchParams): string {
    const topic = this.#topic(params.get('TopicArn'));
    const protocol = params.get('Protocol') ?? '';
    if (!PROTOCOLS.has(protocol)) {
      throw invalidParameter(`Amazon SNS does not support this protocol string: ${protocol}`);
    }
    const subscriptionArn = `${topic.arn}:${randomUUID()}`;
    this.subscriptions.push({
      subscriptionArn,
      topicArn: topic.arn,
      protocol,
      endpoint: params.get('Endpoint') ?? undefined,
    });
    return element('SubscriptionArn', subscriptionArn);
  }

  /** Validates like SNS, in the order it does, and records the message; returns its id. */
  #publish(params: URLSearchParams): string {
    const topicArn = params.get('TopicArn');
    if (!topicArn) {
      throw invalidParameter('TopicArn or TargetArn Reason: no value for required parameter');
    }
    const message = params.get('Message');
    if (!message) {
      throw invalidParameter('Empty message');
    }
    const subject = params.get('Subject') ?? undefined;
    if (subject !== undefined && !SUBJECT.test(subject)) {
      throw invalidParameter('Subject');
    }
    const messageStructure = params.get('MessageStructure') ?? undefined;
    if (messageStructure !== undefined) {
      checkMessageStructure(messageStructure, message);
    }
    const messageAttributes = readMessageAttributes(params);
    if (publishedBytes(subject, message, messageAttributes) > MAX_MESSAGE_BYTES) {
      throw invalidParameter('Message too long');
    }
    this.#topic(topicArn);
    const messageId = randomUUID();
    this.published.push({
      topicArn,
      subject,
      message,
      messageStructure,
      messageAttributes,
      messageId,
      at: new Date(),
    });
    return messageId;
  }

  #topic(arn: string | null): Topic {
    if (!arn) {
      throw invalidParameter('TopicArn');
    }
    const topic = this.#topics.get(arn);
    if (!topic) {
      throw new ServiceError('NotFound', 'Topic does not exist', 404);
    }
    return topic;
  }
}

/** With MessageStructure=json the message is a JSON object of strings, one per protocol, and must have `default`. */
function checkMessageStructure(structure: string, message: string): void {
  if (structure !== 'json') {
    throw invalidParameter('MessageStructure');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    parsed = undefined;
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Object.values(parsed).every((value) => typeof value === 'string')
  ) {
    throw invalidParameter('Message Structure - JSON message body failed to parse');
  }
  if (!Object.hasOwn(parsed, 'default')) {
    throw invalidParameter('Message Structure - No default entry in JSON message body');
  }
}

function readMessageAttributes(params: URLSearchParams): Record<string, PublishedAttribute> {
  const entries = mapEntries(params, 'MessageAttributes', 'Name');
  if (entries.length > MAX_ATTRIBUTES) {
    throw new ServiceError(
      'InvalidParameter',
      `Number of message attributes [${entries.length}] exceeds the allowed maximum [${MAX_ATTRIBUTES}].`,
    );
  }
  const attributes: Record<string, PublishedAttribute> = {};
  for (const entry of entries) {
    const name = params.get(`${entry}.Name`) ?? '';
    if (!ATTRIBUTE_NAME.test(name)) {
      throw invalidParameter(`MessageAttributes Reason: invalid message attribute name ${name}`);
    }
    attributes[name] = readAttributeValue(name, params, `${entry}.Value`);
  }
  return attributes;
}

function readAttributeValue(name: string, params: URLSearchParams, prefix: string): PublishedAttribute {
  const dataType = params.get(`${prefix}.DataType`) ?? '';
  if (!ATTRIBUTE_TYPE.test(dataType)) {
    throw new ServiceError(
      'ParameterValueInvalid',
      `The message attribute '${name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.`,
    );
  }
  const binary = dataType.startsWith('Binary');
  const value = params.get(`${prefix}.${binary ? 'BinaryValue' : 'StringValue'}`);
  if (!value) {
    throw new ServiceError(
      'ParameterValueInvalid',
      `The message attribute '${name}' must contain non-empty message attribute value for message attribute type '${dataType}'.`,
    );
  }
  if (dataType.startsWith('Number') && !Number.isFinite(Number(value))) {
    throw new ServiceError(
      'ParameterValueInvalid',
      `The message attribute '${name}' with type 'Number' must use a numeric value.`,
    );
  }
  return binary
    ? { DataType: dataType, BinaryValue: new Uint8Array(Buffer.from(value, 'base64')) }
    : { DataType: dataType, StringValue: value };
}

/** The CreateTopic `Attributes` map. */
function readAttributes(params: URLSearchParams): Record<string, string> {
  return Object.fromEntries(
    mapEntries(params, 'Attributes', 'key').map((entry) => [
      params.get(`${entry}.key`) ?? '',
      params.get(`${entry}.value`) ?? '',
    ]),
  );
}

/** The `<map>.entry.<n>` prefixes of an awsQuery map, whose entries are numbered from 1 without gaps. */
function mapEntries(params: URLSearchParams, map: string, keyField: string): string[] {
  const entries: string[] = [];
  for (let n = 1; params.has(`${map}.entry.${n}.${keyField}`); n++) {
    entries.push(`${map}.entry.${n}`);
  }
  return entries;
}

/**
 * SNS counts the attributes' names, types and values against the 256 KiB message limit ("All parts of the message
 * attribute, including name, type, and value, are included in the message size restriction":
 * https://docs.aws.amazon.com/sns/latest/api/API_MessageAttributeValue.html). The subject is counted too, which is
 * stricter than the documents say by at most 100 bytes: a publisher that passes here passes SNS.
 */
function publishedBytes(
  subject: string | undefined,
  message: string,
  attributes: Record<string, PublishedAttribute>,
): number {
  let bytes = Buffer.byteLength(subject ?? '') + Buffer.byteLength(message);
  for (const [name, { DataType, StringValue, BinaryValue }] of Object.entries(attributes)) {
    bytes += Buffer.byteLength(name) + Buffer.byteLength(DataType);
    bytes += BinaryValue ? BinaryValue.byteLength : Buffer.byteLength(StringValue ?? '');
  }
  return bytes;
}

function invalidParameter(what: string): ServiceError {
  return new ServiceError('InvalidParameter', `Invalid parameter: ${what}`);
}
