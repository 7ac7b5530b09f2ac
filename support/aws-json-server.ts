/**
 * The AWS JSON protocols (1.0 and 1.1) that CloudWatch, SQS and Secrets Manager speak: POSTs to `/` that name the
 * operation in `X-Amz-Target: <prefix><Operation>` and carry its input as a JSON body, answered with JSON, and errors
 * as `{"__type", "message"}`. A service with the awsQueryCompatible trait (CloudWatch and SQS, which spoke awsQuery
 * before) also names the error's code and who is at fault in the `x-amzn-query-error` header, which the SDK reads
 * before `__type`.
 */
import {
  awsJsonErrorReply,
  type HttpReply,
  jsonReply,
  LoopbackServer,
  type RawRequest,
  type ServiceCall,
  ServiceError,
  signedRegion,
} from './loopback-server.ts';

/** How a service's model says it speaks AWS JSON. */
export interface AwsJsonProtocol {
  /** The service's name, as the fake's errors say it. */
  readonly service: string;
  readonly version: '1.0' | '1.1';
  /** What `X-Amz-Target` starts with, up to the operation's name: `AmazonSQS.`. */
  readonly targetPrefix: string;
  /**
   * For an awsQueryCompatible service, the `__type` it answers each error code with (the code itself where none is
   * listed); the code then travels in the `x-amzn-query-error` header too.
   */
  readonly queryErrorTypes?: Readonly<Record<string, string>>;
}

export abstract class AwsJsonServer<Input> extends LoopbackServer<Input> {
  protected abstract readonly protocol: AwsJsonProtocol;

  /** The request's operation, its JSON input, and the Region it was signed for. */
  protected decode({ headers, body }: RawRequest): ServiceCall<Input> {
    const { service, targetPrefix } = this.protocol;
    const target = headers['x-amz-target'];
    if (typeof target !== 'string' || !target.startsWith(targetPrefix)) {
      throw new ServiceError(
        'UnknownOperationException',
        `X-Amz-Target ${String(target)} is not an operation of ${service}`,
      );
    }
    let input: Input;
    try {
      input = JSON.parse(body || '{}');
    } catch {
      throw new ServiceError('SerializationException', 'The request body is not valid JSON');
    }
    const region = signedRegion(headers);
    return { operation: target.slice(targetPrefix.length), input, ...(region && { region }) };
  }

  protected encodeError(error: ServiceError): HttpReply {
    const types = this.protocol.queryErrorTypes;
    // The awsQueryCompatible services speak JSON 1.0, which is what awsJsonErrorReply answers in.
    if (types) return awsJsonErrorReply(error, types[error.code] ?? error.code);
    return jsonReply(error.status, { __type: error.code, message: error.message }, this.#contentType);
  }

  /** A successful answer: the operation's output as JSON. */
  protected reply(output: unknown): HttpReply {
    return jsonReply(200, output, this.#contentType);
  }

  get #contentType(): string {
    return `application/x-amz-json-${this.protocol.version}`;
  }
}
