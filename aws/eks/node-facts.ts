import {
  DescribeClusterCommand,
  EKSClient,
  ListFargateProfilesCommand,
  ListNodegroupsCommand,
} from '@aws-sdk/client-eks';
import type { EksNodeFacts } from '../../shared/doctor/node-kind.ts';
import { RETRY_ATTEMPTS, withoutCallLogging } from '../clients.ts';
import { RegionPacers, sendPaced } from '../paced-send.ts';

/** What this module sends: what `sentinel doctor` asks EKS about a cluster whose configuration does not say its kind. */
export const IAM_ACTIONS = ['eks:DescribeCluster', 'eks:ListNodegroups', 'eks:ListFargateProfiles'] as const;

/**
 * The most names one page of ListNodegroups or ListFargateProfiles holds: `maxResults` is 1 to 100
 * (https://docs.aws.amazon.com/eks/latest/APIReference/API_ListNodegroups.html,
 * https://docs.aws.amazon.com/eks/latest/APIReference/API_ListFargateProfiles.html).
 */
export const EKS_PAGE_SIZE = 100;

/**
 * EKS calls started per second in each Region, the three operations together; the account is always the caller's
 * own, as EKS reads no other. This is a conservative choice, not a documented quota: EKS documents no request rate for
 * its API. Its service quotas count resources only (https://docs.aws.amazon.com/eks/latest/userguide/service-quotas.html),
 * its API reference names ThrottlingException without a rate, and its user guide says only that many DescribeCluster
 * calls at once, as from nodes launched together, are answered "Too Many Requests"
 * (https://docs.aws.amazon.com/eks/latest/userguide/troubleshooting.html#too-many-requests). So the doctor takes half of
 * the 20 a second at which EC2, whose throttling AWS does document, refills the bucket of each of its reads per account
 * and Region (https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-throttling.html), and leaves the rest to the
 * account's other EKS callers (nodes that describe their cluster at boot, eksctl, Terraform, the console). At 10 a
 * second a cluster's lookup, three calls, takes 0.3 s of its Region's pace: 100 clusters of a Region, EKS's default
 * quota, take 30 s.
 */
export const EKS_CALLS_PER_SECOND = 10;

/** Lookups in flight at once in a Region: as many as a second's calls start, each lookup's three calls one by one. */
export const EKS_LOOKUPS_IN_FLIGHT = EKS_CALLS_PER_SECOND;

/** Every lookup of the process shares its Region's pace, whichever cluster it is for. */
const EKS_PACERS = new RegionPacers<EKSClient>({ callsPerSecond: EKS_CALLS_PER_SECOND });

/** One EKS client per Region, with the default credential chain (the caller's own account: EKS reads no other). */
export function eksClients(): (region: string) => EKSClient {
  const clients = new Map<string, EKSClient>();
  return (region) => {
    let client = clients.get(region);
    if (!client) {
      client = withoutCallLogging(new EKSClient({ region, maxAttempts: RETRY_ATTEMPTS.eks, retryMode: 'standard' }));
      clients.set(region, client);
    }
    return client;
  };
}

/**
 * How EKS says the cluster's nodes run: Auto Mode (DescribeCluster's `computeConfig.enabled`), its managed node
 * groups and its Fargate profiles, every page of each, each call paced in the client's Region at EKS_CALLS_PER_SECOND
 * across every lookup of the process. A cluster EKS does not know throws its
 * ResourceNotFoundException, a refused call its AccessDeniedException: the caller says which, per cluster.
 */
export async function eksNodeFacts(client: EKSClient, clusterName: string): Promise<EksNodeFacts> {
  const pacer = EKS_PACERS.pacerFor(client);
  const { cluster } = await sendPaced(client, pacer, new DescribeClusterCommand({ name: clusterName }));
  const page = { clusterName, maxResults: EKS_PAGE_SIZE };
  const managedNodeGroups = await everyName(async (nextToken) => {
    const answer = await sendPaced(
      client,
      pacer,
      new ListNodegroupsCommand({ ...page, ...(nextToken && { nextToken }) }),
    );
    return [answer.nodegroups, answer.nextToken];
  });
  const fargateProfiles = await everyName(async (nextToken) => {
    const answer = await sendPaced(
      client,
      pacer,
      new ListFargateProfilesCommand({ ...page, ...(nextToken && { nextToken }) }),
    );
    return [answer.fargateProfileNames, answer.nextToken];
  });
  return { autoMode: cluster?.computeConfig?.enabled === true, managedNodeGroups, fargateProfiles };
}

/** The names of every page of a listing that pages with `nextToken`. */
async function everyName(
  list: (nextToken: string | undefined) => Promise<[names: string[] | undefined, nextToken: string | undefined]>,
): Promise<string[]> {
  const names: string[] = [];
  let nextToken: string | undefined;
  do {
    const [page, next] = await list(nextToken);
    names.push(...(page ?? []));
    nextToken = next;
  } while (nextToken);
  return names;
}
