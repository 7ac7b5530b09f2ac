import {
  DescribeClusterCommand,
  EKSClient,
  ListFargateProfilesCommand,
  ListNodegroupsCommand,
} from '@aws-sdk/client-eks';
import type { EksNodeFacts } from '../../shared/doctor/node-kind.ts';
import { RETRY_ATTEMPTS, withoutCallLogging } from '../clients.ts';

/** What this module sends: what `sentinel doctor` asks EKS about a cluster whose configuration does not say its kind. */
export const IAM_ACTIONS = ['eks:DescribeCluster', 'eks:ListNodegroups', 'eks:ListFargateProfiles'] as const;

/**
 * The most names one page of ListNodegroups or ListFargateProfiles holds: `maxResults` is 1 to 100
 * (https://docs.aws.amazon.com/eks/latest/APIReference/API_ListNodegroups.html,
 * https://docs.aws.amazon.com/eks/latest/APIReference/API_ListFargateProfiles.html).
 */
export const EKS_PAGE_SIZE = 100;

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
 * groups and its Fargate profiles, every page of each. A cluster EKS does not know throws its
 * ResourceNotFoundException, a refused call its AccessDeniedException: the caller says which, per cluster.
 */
export async function eksNodeFacts(client: EKSClient, clusterName: string): Promise<EksNodeFacts> {
  const { cluster } = await client.send(new DescribeClusterCommand({ name: clusterName }));
  const page = { clusterName, maxResults: EKS_PAGE_SIZE };
  const managedNodeGroups = await everyName(async (nextToken) => {
    const answer = await client.send(new ListNodegroupsCommand({ ...page, ...(nextToken && { nextToken }) }));
    return [answer.nodegroups, answer.nextToken];
  });
  const fargateProfiles = await everyName(async (nextToken) => {
    const answer = await client.send(new ListFargateProfilesCommand({ ...page, ...(nextToken && { nextToken }) }));
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
