import type { AwsHarness } from '../../support/aws-harness.ts';
import { TABLE } from '../../support/aws-harness.ts';
import { type CloudFormationServer, startCloudFormationServer } from './cloudformation-server.ts';
import { type StsServer, startStsServer } from './sts-server.ts';

/** The ARN the loopback STS answers for the tests' caller: the author of silences and hand resolutions. */
export const ALICE = 'arn:aws:sts::111122223333:assumed-role/Ops/alice';

export interface OperatorStack {
  readonly cloudformation: CloudFormationServer;
  readonly sts: StsServer;
  close(): Promise<void>;
}

/**
 * What an operator's command finds beside the harness: an `OpsStack` whose outputs name the harness's topics and
 * table (through CloudFormation), and STS naming the caller ALICE.
 */
export async function startOperatorStack(harness: AwsHarness): Promise<OperatorStack> {
  const [cloudformation, sts] = await Promise.all([startCloudFormationServer(), startStsServer()]);
  process.env.AWS_ENDPOINT_URL_CLOUDFORMATION = cloudformation.endpoint;
  process.env.AWS_ENDPOINT_URL_STS = sts.endpoint;
  sts.addIdentity(process.env.AWS_ACCESS_KEY_ID ?? '', ALICE);
  cloudformation.addStack('OpsStack', {
    PagingTopicArn: harness.topics.paging,
    NoticeTopicArn: harness.topics.notice,
    DigestTopicArn: harness.topics.digest,
    TableName: TABLE,
  });
  return {
    cloudformation,
    sts,
    close: async () => {
      await Promise.all([cloudformation.close(), sts.close()]);
    },
  };
}
