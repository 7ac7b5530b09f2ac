/**
 * The awsQuery protocol that SNS and CloudFormation speak: form-urlencoded POSTs carrying `Action=<Operation>`,
 * answered with `<Operation>Response/<Operation>Result` XML, and errors as `<ErrorResponse><Error><Type/><Code/>
 * <Message/></Error>` whose Code the SDK maps to its error classes.
 */
import { type HttpReply, LoopbackServer, type RawRequest, type ServiceCall, ServiceError } from './loopback-server.ts';

export abstract class AwsQueryServer extends LoopbackServer<URLSearchParams> {
  /** The service's XML namespace, e.g. `http://sns.amazonaws.com/doc/2010-03-31/`. */
  protected abstract readonly xmlns: string;

  /** The operation's result as the XML inside its `<Operation>Result` element. */
  protected abstract run(operation: string, params: URLSearchParams): string;

  protected decode(request: RawRequest): ServiceCall<URLSearchParams> {
    return queryCall(request);
  }

  protected handle({ operation, input }: ServiceCall<URLSearchParams>, requestId: string): HttpReply {
    return {
      status: 200,
      contentType: 'text/xml',
      body:
        `<${operation}Response xmlns="${this.xmlns}"><${operation}Result>${this.run(operation, input)}</${operation}Result>` +
        `<ResponseMetadata>${element('RequestId', requestId)}</ResponseMetadata></${operation}Response>`,
    };
  }

  protected encodeError(error: ServiceError, requestId: string): HttpReply {
    return {
      status: error.status,
      contentType: 'text/xml',
      body:
        `<ErrorResponse xmlns="${this.xmlns}"><Error>${element('Type', error.fault)}${element('Code', error.code)}` +
        `${element('Message', error.message)}</Error>${element('RequestId', requestId)}</ErrorResponse>`,
    };
  }
}

/** The call a query request makes, as awsQuery and EC2's query protocol both send it: `Action=<Operation>&...`. */
export function queryCall({ body }: RawRequest): ServiceCall<URLSearchParams> {
  const params = new URLSearchParams(body);
  const action = params.get('Action');
  if (!action) {
    throw new ServiceError('MissingAction', 'The request must contain the parameter Action.');
  }
  return { operation: action, input: params };
}

export function element(tag: string, text: string): string {
  return `<${tag}>${escapeXml(text)}</${tag}>`;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
