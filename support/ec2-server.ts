/**
 * A loopback fake of EC2's DescribeInstances that the real @aws-sdk/client-ec2 talks to unmodified. EC2 speaks its
 * own query protocol: form-urlencoded POSTs carrying `Action=<Operation>&Version=2016-11-15`, lists flattened to
 * `InstanceId.<n>`, answered with `<OperationResponse>` XML (no Result wrapper, a `requestId` element, lists as
 * `<xSet><item>`), and errors as `<Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>`.
 * As EC2 does, an instance ID it does not know fails the whole call with `InvalidInstanceID.NotFound`, and throttling
 * answers `RequestLimitExceeded` (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html).
 */
import { element, queryCall } from './aws-query-server.ts';
import {
  type FaultAnswers,
  type HttpReply,
  LoopbackServer,
  type LoopbackServerOptions,
  type RawRequest,
  type ServiceCall,
  ServiceError,
} from './loopback-server.ts';

const XMLNS = 'http://ec2.amazonaws.com/doc/2016-11-15/';
/** DescribeInstances takes at most 1000 instance IDs in one call (InstanceIds, API Reference: DescribeInstances). */
const MAX_INSTANCE_IDS = 1000;

export async function startEc2Server(options: LoopbackServerOptions = {}): Promise<Ec2Server> {
  return new Ec2Server(options).listen();
}

export class Ec2Server extends LoopbackServer<URLSearchParams> {
  /** Tags by instance ID, of the instances EC2 describes. */
  readonly instances = new Map<string, Record<string, string>>();

  protected decode(request: RawRequest): ServiceCall<URLSearchParams> {
    return queryCall(request);
  }

  protected handle({ operation, input }: ServiceCall<URLSearchParams>, requestId: string): HttpReply {
    if (operation !== 'DescribeInstances') {
      throw new ServiceError('InvalidAction', `The action ${operation} is not valid for this web service.`);
    }
    const ids = [...input.entries()].filter(([name]) => /^InstanceId\.\d+$/.test(name)).map(([, id]) => id);
    if (ids.length > MAX_INSTANCE_IDS) {
      throw new ServiceError('InvalidParameterValue', `at most ${MAX_INSTANCE_IDS} instance IDs`);
    }
    const unknown = ids.filter((id) => !this.instances.has(id));
    if (unknown.length > 0) {
      throw new ServiceError('InvalidInstanceID.NotFound', `The instance IDs '${unknown.join(', ')}' do not exist`);
    }
    const items = ids
      .map((id) => {
        const tags = Object.entries(this.instances.get(id) ?? {})
          .map(([key, value]) => `<item>${element('key', key)}${element('value', value)}</item>`)
          .join('');
        return `<item>${element('instanceId', id)}<tagSet>${tags}</tagSet></item>`;
      })
      .join('');
    return {
      status: 200,
      contentType: 'text/xml',
      body:
        `<DescribeInstancesResponse xmlns="${XMLNS}">${element('requestId', requestId)}<reservationSet>` +
        (items &&
          `<item>${element('reservationId', 'r-0123456789abcdef0')}<instancesSet>${items}</instancesSet></item>`) +
        `</reservationSet></DescribeInstancesResponse>`,
    };
  }

  protected encodeError(error: ServiceError, requestId: string): HttpReply {
    return {
      status: error.status,
      contentType: 'text/xml',
      body: `<Response><Errors><Error>${element('Code', error.code)}${element('Message', error.message)}</Error></Errors>${element('RequestID', requestId)}</Response>`,
    };
  }

  protected readonly faultAnswers: FaultAnswers = {
    throttle: ['RequestLimitExceeded', 'Request limit exceeded.', 503],
    'server-error': ['InternalError', 'An internal error has occurred (injected fault)', 500],
    unavailable: ['Unavailable', 'The server is overloaded (injected fault)', 503],
  };
}
