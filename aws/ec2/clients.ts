import { EC2Client } from '@aws-sdk/client-ec2';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { RETRY_ATTEMPTS, withoutCallLogging } from '../clients.ts';

/** What this module sends: AssumeRole, into the node-lookup role of a workload account. */
export const IAM_ACTIONS = ['sts:AssumeRole'] as const;

/**
 * The role each SourceAccountStack creates for the ops account's node-churn function, one per Region (role names are
 * unique in an account): DescribeInstances only, so that a node of a workload account can be placed in its cluster by
 * its tags.
 */
export const NODE_LOOKUP_ROLE_NAME = 'k8s-incident-sentinel-node-lookup';
export const nodeLookupRoleName = (region: string) => `${NODE_LOOKUP_ROLE_NAME}-${region}`;

/**
 * EC2 clients by account and Region: the function's own credentials in its own account (`ownAccount`), and in any
 * other the node-lookup role of that account, assumed with STS and renewed by the SDK when it expires.
 */
export function ec2Clients(ownAccount: string): (account: string, region: string) => EC2Client {
  const clients = new Map<string, EC2Client>();
  let sts: STSClient | undefined;
  return (account, region) => {
    const key = `${account}/${region}`;
    let client = clients.get(key);
    if (!client) {
      const assumed =
        account === ownAccount
          ? {}
          : {
              credentials: async () => {
                sts ??= withoutCallLogging(new STSClient({ maxAttempts: RETRY_ATTEMPTS.ec2, retryMode: 'standard' }));
                const { Credentials: c } = await sts.send(
                  new AssumeRoleCommand({
                    RoleArn: `arn:aws:iam::${account}:role/${nodeLookupRoleName(region)}`,
                    RoleSessionName: 'sentinel-node-churn',
                  }),
                );
                if (!c?.AccessKeyId || !c.SecretAccessKey)
                  throw new Error(`AssumeRole gave no credentials for ${account}`);
                return {
                  accessKeyId: c.AccessKeyId,
                  secretAccessKey: c.SecretAccessKey,
                  ...(c.SessionToken && { sessionToken: c.SessionToken }),
                  ...(c.Expiration && { expiration: c.Expiration }),
                };
              },
            };
      client = withoutCallLogging(
        new EC2Client({ region, maxAttempts: RETRY_ATTEMPTS.ec2, retryMode: 'standard', ...assumed }),
      );
      clients.set(key, client);
    }
    return client;
  };
}
