/**
 * A loopback fake of STS GetCallerIdentity that the real @aws-sdk/client-sts talks to unmodified (awsQuery, like
 * SNS). It answers with the identity registered for the access key that signed the request, as STS answers for the
 * credentials that signed it, and with InvalidClientTokenId (403) for a key it does not know
 * (https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html).
 */
import { AwsQueryServer, element } from '../../support/aws-query-server.ts';
import { type FaultAnswers, type RawRequest, type ServiceCall, ServiceError } from '../../support/loopback-server.ts';

export async function startStsServer(): Promise<StsServer> {
  return new StsServer().listen();
}

/** `Credential=<access key>/<date>/<region>/sts/aws4_request` in a SigV4 Authorization header. */
const SIGNING_KEY = /Credential=([^/]+)\//;

export class StsServer extends AwsQueryServer {
  protected readonly xmlns = 'https://sts.amazonaws.com/doc/2011-06-15/';
  readonly #identities = new Map<string, string>();

  /** Requests signed with `accessKeyId` are answered as the caller `arn`. */
  addIdentity(accessKeyId: string, arn: string): void {
    this.#identities.set(accessKeyId, arn);
  }

  protected override decode(request: RawRequest): ServiceCall<URLSearchParams> {
    const call = super.decode(request);
    const key = SIGNING_KEY.exec(String(request.headers.authorization ?? ''))?.[1] ?? '';
    const arn = this.#identities.get(key);
    if (arn === undefined) {
      throw new ServiceError('InvalidClientTokenId', 'The security token included in the request is invalid.', 403);
    }
    // The caller travels with the call's input, which is all that `run` is given.
    call.input.set('CallerArn', arn);
    return call;
  }

  protected run(operation: string, params: URLSearchParams): string {
    if (operation !== 'GetCallerIdentity') {
      throw new ServiceError('InvalidAction', `${operation} is not implemented by this fake`);
    }
    const arn = params.get('CallerArn') ?? '';
    const account = arn.split(':')[4] ?? '';
    return `${element('UserId', `AROAEXAMPLE:${arn.split('/').pop()}`)}${element('Account', account)}${element('Arn', arn)}`;
  }

  protected readonly faultAnswers: FaultAnswers = {
    throttle: ['Throttling', 'Rate exceeded', 400],
    'server-error': ['InternalFailure', 'Internal failure (injected fault)', 500],
    unavailable: ['InternalFailure', 'Internal failure (injected fault)', 503],
  };
}
