/**
 * A loopback fake of CloudWatch Observability Access Manager's ListAttachedLinks, the one OAM read `sentinel doctor`
 * makes: REST-JSON, `POST /ListAttachedLinks` with {SinkIdentifier, MaxResults, NextToken}, answered
 * {Items: [{Label, LinkArn, ResourceTypes}], NextToken}; errors carry their type in `x-amzn-ErrorType` and a `message`
 * (https://docs.aws.amazon.com/OAM/latest/APIReference/API_ListAttachedLinks.html). It refuses a request that is not
 * SigV4-signed for the `oam` service, as OAM would.
 */
import {
  type FaultAnswers,
  type HttpReply,
  jsonReply,
  LoopbackServer,
  type RawRequest,
  restJsonErrorReply,
  type ServiceCall,
  ServiceError,
} from '../../support/loopback-server.ts';

interface Link {
  readonly account: string;
  readonly label: string;
  readonly resourceTypes: readonly string[];
}

const SIGNED_FOR_OAM = /^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/[a-z0-9-]+\/oam\/aws4_request, SignedHeaders=/;
const MAX_RESULTS = 1000;

export async function startOamServer(): Promise<OamServer> {
  return new OamServer().listen();
}

export class OamServer extends LoopbackServer<Record<string, unknown>> {
  readonly #sinks = new Map<string, Link[]>();

  /** A sink of the monitoring account, and the links attached to it. */
  addSink(sinkArn: string, links: readonly Link[] = []): void {
    this.#sinks.set(sinkArn, [...links]);
  }

  override reset(): void {
    super.reset();
    this.#sinks.clear();
  }

  protected decode({ headers, body, path }: RawRequest): ServiceCall<Record<string, unknown>> {
    if (!SIGNED_FOR_OAM.test(String(headers.authorization ?? ''))) {
      throw new ServiceError('AccessDeniedException', 'The request is not signed with SigV4 for the oam service.', 403);
    }
    try {
      return { operation: path.replace(/^\//, '').split('?')[0] ?? '', input: JSON.parse(body || '{}') };
    } catch {
      throw new ServiceError('ValidationException', 'The request body is not valid JSON');
    }
  }

  protected handle({ operation, input }: ServiceCall<Record<string, unknown>>): HttpReply {
    if (operation !== 'ListAttachedLinks') {
      throw new ServiceError('UnknownOperationException', `The loopback OAM fake does not implement ${operation}`, 404);
    }
    const sink = input.SinkIdentifier;
    if (typeof sink !== 'string' || sink === '') {
      throw new ServiceError('MissingRequiredParameterException', 'SinkIdentifier is required');
    }
    const links = this.#sinks.get(sink);
    if (!links) throw new ServiceError('ResourceNotFoundException', `Sink ${sink} does not exist`, 404);
    const max = typeof input.MaxResults === 'number' ? input.MaxResults : MAX_RESULTS;
    if (!(Number.isInteger(max) && max >= 1 && max <= MAX_RESULTS)) {
      throw new ServiceError('ValidationException', 'MaxResults must be from 1 to 1000');
    }
    const offset = typeof input.NextToken === 'string' ? Number(input.NextToken) : 0;
    const [, , , region] = sink.split(':');
    const page = links.slice(offset, offset + max);
    return jsonReply(200, {
      Items: page.map((link, index) => ({
        Label: link.label,
        LinkArn: `arn:aws:oam:${region}:${link.account}:link/link-${offset + index}`,
        ResourceTypes: link.resourceTypes,
      })),
      ...(offset + max < links.length && { NextToken: String(offset + max) }),
    });
  }

  protected encodeError(error: ServiceError): HttpReply {
    return restJsonErrorReply(error);
  }

  protected readonly faultAnswers: FaultAnswers = {
    throttle: ['ThrottlingException', 'Rate exceeded', 429],
    'server-error': ['InternalServerException', 'Internal failure (injected fault)', 500],
    unavailable: ['InternalServerException', 'Internal failure (injected fault)', 503],
  };
}
