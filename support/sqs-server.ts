/**
 * A loopback fake of an SQS queue's sending side that the real @aws-sdk/client-sqs talks to unmodified. The installed
 * client speaks AWS JSON 1.0: POSTs to `/` with `X-Amz-Target: AmazonSQS.<Operation>` and a JSON body, and errors as
 * `{"__type", "message"}` with the `x-amzn-query-error` header. The client checks each answer's MD5OfMessageBody
 * against what it sent, so the fake computes it as SQS does. A test drains the messages and hands them to a worker as
 * the Lambda event source mapping would, one SQS event per batch.
 *
 * Limits from the SendMessage and SendMessageBatch API references
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html): at most 10
 * entries, distinct Ids of at most 80 alphanumerics, hyphens and underscores, and 1 MiB (1,048,576 bytes) a message
 * and in all, since SQS raised both from 256 KiB in 2025 ("More room to build: serverless services now support
 * payloads up to 1 MB",
 * https://aws.amazon.com/blogs/compute/more-room-to-build-serverless-services-now-support-payloads-up-to-1-mb). The
 * shard queue's `MaximumMessageSize` is as much (aws/sqs/shard-message.ts), so that a test fails where a message
 * would not fit the deployment's queue either. A message over it is refused as SQS refuses one, `InvalidParameterValue`
 * (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/CommonErrors.html); a batch over it,
 * `BatchRequestTooLong`, whichever of its messages is over.
 */
import { createHash, randomUUID } from 'node:crypto';
import { type AwsJsonProtocol, AwsJsonServer } from './aws-json-server.ts';
import { type FaultAnswers, type HttpReply, type ServiceCall, ServiceError } from './loopback-server.ts';

const MAX_ENTRIES = 10;
const MAX_MESSAGE_BYTES = 1_048_576;
const MAX_PAYLOAD_BYTES = 1_048_576;
const ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;

const ERROR_TYPES: Record<string, string> = {
  EmptyBatchRequest: 'com.amazonaws.sqs#EmptyBatchRequest',
  TooManyEntriesInBatchRequest: 'com.amazonaws.sqs#TooManyEntriesInBatchRequest',
  BatchEntryIdsNotDistinct: 'com.amazonaws.sqs#BatchEntryIdsNotDistinct',
  InvalidBatchEntryId: 'com.amazonaws.sqs#InvalidBatchEntryId',
  BatchRequestTooLong: 'com.amazonaws.sqs#BatchRequestTooLong',
  QueueDoesNotExist: 'com.amazonaws.sqs#QueueDoesNotExist',
  RequestThrottled: 'com.amazonaws.sqs#RequestThrottled',
  InternalError: 'com.amazonaws.sqs#InternalError',
  ServiceUnavailable: 'com.amazonaws.sqs#ServiceUnavailable',
  InvalidAddress: 'com.amazonaws.sqs#InvalidAddress',
  InvalidParameterValue: 'com.amazonaws.sqs#InvalidParameterValue',
};

const PROTOCOL: AwsJsonProtocol = {
  service: 'SQS',
  version: '1.0',
  targetPrefix: 'AmazonSQS.',
  queryErrorTypes: ERROR_TYPES,
};

export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly md5: string;
  readonly sentAt: number;
}

interface Entry {
  readonly Id: string;
  readonly MessageBody: string;
}

export class SqsServer extends AwsJsonServer<Record<string, unknown>> {
  protected readonly protocol = PROTOCOL;
  readonly #queues = new Map<string, QueuedMessage[]>();

  /** A queue and its URL, on this server. */
  createQueue(name: string): string {
    const url = `${this.endpoint}/000000000000/${name}`;
    this.#queues.set(url, []);
    return url;
  }

  /** Take every message in the queue, oldest first, as the event source mapping's poll would. */
  drain(url: string): QueuedMessage[] {
    const queue = this.#queue(url);
    return queue.splice(0, queue.length);
  }

  /** The SQS event Lambda's event source mapping invokes a function with for these messages. */
  static eventOf(url: string, messages: readonly QueuedMessage[], receiveCount = 1) {
    const name = url.slice(url.lastIndexOf('/') + 1);
    return {
      Records: messages.map((m) => ({
        messageId: m.messageId,
        receiptHandle: `${m.messageId}#${receiveCount}`,
        body: m.body,
        attributes: {
          ApproximateReceiveCount: String(receiveCount),
          SentTimestamp: String(m.sentAt),
          SenderId: 'AIDAEXAMPLE',
          ApproximateFirstReceiveTimestamp: String(m.sentAt),
        },
        messageAttributes: {},
        md5OfBody: m.md5,
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:eu-west-1:000000000000:${name}`,
        awsRegion: 'eu-west-1',
      })),
    };
  }

  override reset(): void {
    super.reset();
    for (const queue of this.#queues.values()) queue.length = 0;
  }

  protected handle({ operation, input }: ServiceCall<Record<string, unknown>>): HttpReply {
    switch (operation) {
      case 'SendMessage': {
        const body = String(input.MessageBody);
        if (Buffer.byteLength(body) > MAX_MESSAGE_BYTES) {
          throw new ServiceError(
            'InvalidParameterValue',
            `One or more parameters are invalid. Reason: Message must be shorter than ${MAX_MESSAGE_BYTES} bytes.`,
          );
        }
        const sent = this.#send(String(input.QueueUrl), [{ Id: 'only', MessageBody: body }]);
        const [message] = sent;
        return this.reply({ MessageId: message?.messageId, MD5OfMessageBody: message?.md5 });
      }
      case 'SendMessageBatch': {
        const entries = (input.Entries ?? []) as Entry[];
        const sent = this.#send(String(input.QueueUrl), entries);
        return this.reply({
          Successful: sent.map((m, i) => ({ Id: entries[i]?.Id, MessageId: m.messageId, MD5OfMessageBody: m.md5 })),
          Failed: [],
        });
      }
      default:
        throw new ServiceError('InvalidAddress', `The loopback SQS fake does not implement ${operation}`);
    }
  }

  protected readonly faultAnswers: FaultAnswers = {
    throttle: ['RequestThrottled', 'Request is throttled.', 400],
    'server-error': ['InternalError', 'Internal error (injected fault)', 500],
    unavailable: ['ServiceUnavailable', 'Service unavailable (injected fault)', 503],
  };

  #send(url: string, entries: readonly Entry[]): QueuedMessage[] {
    const queue = this.#queue(url);
    if (entries.length === 0) throw new ServiceError('EmptyBatchRequest', 'The batch request contains no entries.');
    if (entries.length > MAX_ENTRIES) {
      throw new ServiceError(
        'TooManyEntriesInBatchRequest',
        `Maximum number of entries per request are ${MAX_ENTRIES}.`,
      );
    }
    if (new Set(entries.map((e) => e.Id)).size !== entries.length) {
      throw new ServiceError('BatchEntryIdsNotDistinct', 'Id values must be unique within a batch request.');
    }
    const badId = entries.find((e) => !ENTRY_ID.test(e.Id));
    if (badId) throw new ServiceError('InvalidBatchEntryId', `A batch entry id ${badId.Id} is not valid.`);
    const bytes = entries.reduce((n, e) => n + Buffer.byteLength(e.MessageBody), 0);
    if (bytes > MAX_PAYLOAD_BYTES) {
      throw new ServiceError('BatchRequestTooLong', `Batch requests cannot be longer than ${MAX_PAYLOAD_BYTES} bytes.`);
    }
    const sent = entries.map((e) => ({
      messageId: randomUUID(),
      body: e.MessageBody,
      md5: createHash('md5').update(e.MessageBody).digest('hex'),
      sentAt: Date.now(),
    }));
    queue.push(...sent);
    return sent;
  }

  #queue(url: string): QueuedMessage[] {
    const queue = this.#queues.get(url);
    if (!queue) throw new ServiceError('QueueDoesNotExist', `The specified queue ${url} does not exist.`);
    return queue;
  }
}
