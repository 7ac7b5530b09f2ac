import { DescribeInstancesCommand, type EC2Client } from '@aws-sdk/client-ec2';
import type { InstanceDirectory } from '../../shared/churn/node-churn.ts';

/** What this module sends: DescribeInstances, for one instance at a time. */
export const IAM_ACTIONS = ['ec2:DescribeInstances'] as const;

/**
 * The tags of an instance as EC2 describes it. EC2 keeps describing a terminated instance for about an hour
 * ("Terminated instances remain visible ... for approximately one hour",
 * https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/terminating-instances.html), which is how a node whose record
 * was never written (its `running` event lost, or older than the record's TTL) is still placed when it terminates.
 */
export class Ec2InstanceDirectory implements InstanceDirectory {
  /** `clientFor` gives a client for an account and Region: in another account, with its node-lookup role. */
  constructor(private readonly clientFor: (account: string, region: string) => EC2Client) {}

  async tagsOf(instanceId: string, account: string, region: string): Promise<Record<string, string> | undefined> {
    try {
      const answer = await this.clientFor(account, region).send(
        new DescribeInstancesCommand({ InstanceIds: [instanceId] }),
      );
      const instance = answer.Reservations?.flatMap((r) => r.Instances ?? []).find((i) => i.InstanceId === instanceId);
      if (!instance) return undefined;
      return Object.fromEntries((instance.Tags ?? []).flatMap((t) => (t.Key ? [[t.Key, t.Value ?? '']] : [])));
    } catch (error) {
      // Gone from EC2: nothing left to look up. Every other failure (throttling, access) throws, and is retried.
      if ((error as Error)?.name === 'InvalidInstanceID.NotFound') return undefined;
      throw error;
    }
  }
}
