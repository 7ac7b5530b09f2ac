import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { SentinelError } from '../shared/errors.ts';
import { AwsRequestError } from './aws-errors.ts';

/** The outputs the OpsStack declares, which the commands use to find the deployed topics and table. */
export interface StackOutputs {
  readonly PagingTopicArn: string;
  readonly NoticeTopicArn: string;
  readonly DigestTopicArn: string;
  readonly TableName: string;
  /** The PagerDuty and Opsgenie integrations of the delivery function, comma-separated; absent without any. */
  readonly PagingIntegrations?: string;
}

export async function stackOutputs(stackName: string): Promise<StackOutputs> {
  const client = new CloudFormationClient({});
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const outputs = Object.fromEntries((Stacks?.[0]?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
    const missing = ['PagingTopicArn', 'NoticeTopicArn', 'DigestTopicArn', 'TableName'].filter((key) => !outputs[key]);
    if (missing.length > 0) {
      throw new SentinelError(
        `stack ${stackName} has no output ${missing.join(', ')}: is it a k8s-incident-sentinel OpsStack?`,
      );
    }
    return outputs as unknown as StackOutputs;
  } catch (error) {
    if (error instanceof SentinelError) throw error;
    // CloudFormation answers ValidationError for a stack that does not exist: the name given is wrong (exit 2).
    const Named = (error as Error).name === 'ValidationError' ? SentinelError : AwsRequestError;
    throw new Named(`cannot read stack ${stackName}: ${(error as Error).name}: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    client.destroy();
  }
}

/** One output of a stack, in a Region when given; undefined when the stack or the output does not exist. */
export async function stackOutput(stackName: string, key: string, region?: string): Promise<string | undefined> {
  const client = new CloudFormationClient(region ? { region } : {});
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    return Stacks?.[0]?.Outputs?.find((output) => output.OutputKey === key)?.OutputValue;
  } catch (error) {
    if ((error as Error).name === 'ValidationError') return undefined;
    throw new AwsRequestError(`cannot read stack ${stackName}: ${(error as Error).name}: ${(error as Error).message}`, {
      cause: error,
    });
  } finally {
    client.destroy();
  }
}
