/**
 * A loopback fake of CloudFormation's DescribeStacks, enough for the commands that find a deployed stack's outputs
 * (`sentinel test-page --stack`, `sentinel poll --stack`) to run unmodified against it.
 */
import { AwsQueryServer, element } from '../../support/aws-query-server.ts';
import { type FaultAnswers, ServiceError } from '../../support/loopback-server.ts';

export async function startCloudFormationServer(): Promise<CloudFormationServer> {
  return new CloudFormationServer().listen();
}

export class CloudFormationServer extends AwsQueryServer {
  protected readonly xmlns = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';
  readonly #stacks = new Map<string, Record<string, string>>();

  addStack(name: string, outputs: Record<string, string>): void {
    this.#stacks.set(name, outputs);
  }

  protected run(operation: string, params: URLSearchParams): string {
    if (operation !== 'DescribeStacks') {
      throw new ServiceError('InvalidAction', `${operation} is not implemented by this fake`);
    }
    const name = params.get('StackName') ?? '';
    const outputs = this.#stacks.get(name);
    if (!outputs) throw new ServiceError('ValidationError', `Stack with id ${name} does not exist`);
    const members = Object.entries(outputs).map(
      ([key, value]) => `<member>${element('OutputKey', key)}${element('OutputValue', value)}</member>`,
    );
    return (
      `<Stacks><member>${element('StackName', name)}${element('StackId', `arn:aws:cloudformation:us-east-1:000000000000:stack/${name}/1`)}` +
      `${element('StackStatus', 'CREATE_COMPLETE')}${element('CreationTime', '2026-11-01T00:00:00Z')}` +
      `<Outputs>${members.join('')}</Outputs></member></Stacks>`
    );
  }

  protected readonly faultAnswers: FaultAnswers = {
    throttle: ['Throttling', 'Rate exceeded', 400],
    'server-error': ['InternalFailure', 'Internal failure (injected fault)', 500],
    unavailable: ['InternalFailure', 'Internal failure (injected fault)', 503],
  };
}
