/**
 * A loopback fake of the EKS reads `sentinel doctor` makes, which the real @aws-sdk/client-eks talks to unmodified.
 * EKS speaks REST-JSON: the operation is the method and path (GET /clusters/{name}, /clusters/{name}/node-groups,
 * /clusters/{name}/fargate-profiles), lists page with the `maxResults` (1 to 100) and `nextToken` query parameters,
 * and an error is its HTTP status, its type in the `x-amzn-ErrorType` header and `{"message": ...}` in the body, with
 * the cluster's name beside it for ResourceNotFoundException (404)
 * (https://docs.aws.amazon.com/eks/latest/APIReference/API_DescribeCluster.html#API_DescribeCluster_Errors).
 * Past EKS_READS_PER_SECOND in a Region (request-rate-quotas.ts) a call is refused as EKS refuses a throttled one:
 * ThrottlingException, HTTP 429 ("Too Many Requests", the words the EKS user guide quotes,
 * https://docs.aws.amazon.com/eks/latest/userguide/troubleshooting.html#too-many-requests), the type in
 * `x-amzn-ErrorType` and the message in the body, the shape EKS's own ThrottlingException has in its API model (what
 * @aws-sdk/client-eks decodes, and retries as throttling).
 */
import {
  type FaultAnswers,
  type HttpReply,
  jsonReply,
  LoopbackServer,
  type LoopbackServerOptions,
  type RawRequest,
  restJsonErrorReply,
  type ServiceCall,
  ServiceError,
  signedRegion,
} from './loopback-server.ts';
import { EKS_READS_PER_SECOND, RegionRateMeter } from './request-rate-quotas.ts';

/** A cluster as the fake describes it: whether Auto Mode is on, its managed node groups and Fargate profiles. */
export interface EksClusterState {
  readonly autoMode?: boolean;
  readonly nodegroups?: readonly string[];
  readonly fargateProfiles?: readonly string[];
  /** The caller may not read this cluster: every call on it answers AccessDeniedException. */
  readonly denied?: boolean;
}

interface EksInput {
  readonly cluster: string;
  readonly query: URLSearchParams;
}

const ROUTES: readonly [RegExp, string][] = [
  [/^\/clusters\/([^/]+)$/, 'DescribeCluster'],
  [/^\/clusters\/([^/]+)\/node-groups$/, 'ListNodegroups'],
  [/^\/clusters\/([^/]+)\/fargate-profiles$/, 'ListFargateProfiles'],
];

const MAX_RESULTS = 100;

export interface EksServerOptions extends LoopbackServerOptions {
  /** Reads answered in any one second of a Region (EKS_READS_PER_SECOND). */
  readonly readsPerSecond?: number;
}

export async function startEksServer(options: EksServerOptions = {}): Promise<EksServer> {
  return new EksServer(options).listen();
}

export class EksServer extends LoopbackServer<EksInput> {
  /** The clusters EKS knows, by name; any other is answered ResourceNotFoundException. */
  readonly clusters = new Map<string, EksClusterState>();
  /** The reads of each Region, every operation together: what was throttled. The server is one account. */
  readonly quota: RegionRateMeter;

  constructor({ readsPerSecond = EKS_READS_PER_SECOND, ...options }: EksServerOptions = {}) {
    super(options);
    this.quota = new RegionRateMeter(readsPerSecond);
  }

  override reset(): void {
    super.reset();
    this.quota.reset();
  }

  protected decode({ path, headers }: RawRequest): ServiceCall<EksInput> {
    const url = new URL(path, 'http://eks');
    const region = signedRegion(headers);
    for (const [route, operation] of ROUTES) {
      const name = route.exec(url.pathname)?.[1];
      if (name !== undefined) {
        return {
          operation,
          input: { cluster: decodeURIComponent(name), query: url.searchParams },
          ...(region && { region }),
        };
      }
    }
    throw new ServiceError('InvalidRequestException', `No operation at ${url.pathname}`);
  }

  protected handle({ operation, input, region }: ServiceCall<EksInput>): HttpReply {
    if (!this.quota.admit(region ?? '')) throw new ServiceError('ThrottlingException', 'Too Many Requests', 429);
    const state = this.clusters.get(input.cluster);
    if (state?.denied) {
      throw new ServiceError(
        'AccessDeniedException',
        `User is not authorized to perform: eks:${operation} on resource: cluster/${input.cluster}`,
        403,
      );
    }
    if (!state) throw new ClusterNotFound(input.cluster);
    if (operation === 'DescribeCluster') {
      return jsonReply(200, {
        cluster: {
          name: input.cluster,
          arn: `arn:aws:eks:us-east-1:111122223333:cluster/${input.cluster}`,
          status: 'ACTIVE',
          version: '1.33',
          ...(state.autoMode !== undefined && { computeConfig: { enabled: state.autoMode } }),
        },
      });
    }
    const [key, names] =
      operation === 'ListNodegroups'
        ? ['nodegroups', state.nodegroups ?? []]
        : ['fargateProfileNames', state.fargateProfiles ?? []];
    const max = Number(input.query.get('maxResults') ?? MAX_RESULTS);
    if (!Number.isInteger(max) || max < 1 || max > MAX_RESULTS) {
      throw new ServiceError('InvalidParameterException', `maxResults must be between 1 and ${MAX_RESULTS}`);
    }
    const start = Number(input.query.get('nextToken') ?? 0);
    const end = start + max;
    return jsonReply(200, { [key]: names.slice(start, end), ...(end < names.length && { nextToken: String(end) }) });
  }

  protected encodeError(error: ServiceError): HttpReply {
    return restJsonErrorReply(error, error instanceof ClusterNotFound ? { clusterName: error.clusterName } : {});
  }

  protected readonly faultAnswers: FaultAnswers = {
    throttle: ['ThrottlingException', 'Too Many Requests (injected fault)', 429],
    'server-error': ['ServerException', 'An internal error has occurred (injected fault)', 500],
    unavailable: ['ServiceUnavailableException', 'The service is unavailable (injected fault)', 503],
  };
}

/** EKS's 404 for a cluster it does not know in the Region, which names the cluster beside the message. */
class ClusterNotFound extends ServiceError {
  constructor(readonly clusterName: string) {
    super('ResourceNotFoundException', `No cluster found for name: ${clusterName}.`, 404);
  }
}
