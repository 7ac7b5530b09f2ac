import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';

/**
 * What this module sends: GetCallerIdentity, which needs no IAM permission (and cannot be denied): "No permissions
 * are required to perform this operation" (https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html).
 */
export const IAM_ACTIONS = ['sts:GetCallerIdentity'] as const;

/**
 * Who the default credential chain says the caller is, as the ARN of the IAM user or assumed role
 * (`arn:aws:sts::111122223333:assumed-role/Ops/alice`): what a silence records as its author.
 */
export async function callerArn(): Promise<string> {
  const client = new STSClient({});
  try {
    const { Arn } = await client.send(new GetCallerIdentityCommand({}));
    if (!Arn) throw new Error('GetCallerIdentity answered without an Arn');
    return Arn;
  } finally {
    client.destroy();
  }
}
