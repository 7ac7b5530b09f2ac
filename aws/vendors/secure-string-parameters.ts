import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import { GetParameterCommand, ParameterNotFound, ParameterVersionNotFound, type SSMClient } from '@aws-sdk/client-ssm';
import type { SecretReads, SecretStore } from './secret-values.ts';

/**
 * What this module sends: GetParameter on the parameters the config names, through Powertools' SSMProvider and, for
 * the previous version, directly. Decrypting a SecureString needs kms:Decrypt too, which the AWS managed key aws/ssm
 * gives every principal of the account (docs/deploy.md, Where the keys are kept).
 */
export const IAM_ACTIONS = ['ssm:GetParameter'] as const;

/**
 * SecureString parameters of Parameter Store, by name, read decrypted through Powertools' SSMProvider and its cache.
 * A parameter keeps its earlier versions, which GetParameter reads as `NAME:VERSION`
 * (https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_GetParameter.html).
 */
export class SecureStringParameters implements SecretStore {
  readonly #provider: SSMProvider;

  constructor(private readonly client: SSMClient) {
    this.#provider = new SSMProvider({ awsSdkV3Client: client });
  }

  current(name: string, reads: SecretReads): Promise<unknown> {
    return this.#provider.get(name, { ...reads, decrypt: true, throwOnMissing: true });
  }

  /**
   * The version before the current one, as Secrets Manager's AWSPREVIOUS is the value before the last rotation;
   * undefined when the parameter has one version, or that version is no longer there.
   */
  async previous(name: string): Promise<unknown> {
    try {
      const { Parameter: current } = await this.client.send(new GetParameterCommand({ Name: name }));
      if (current?.Version === undefined || current.Version <= 1) return undefined;
      const { Parameter: previous } = await this.client.send(
        new GetParameterCommand({ Name: `${name}:${current.Version - 1}`, WithDecryption: true }),
      );
      return previous?.Value;
    } catch (error) {
      if (error instanceof ParameterNotFound || error instanceof ParameterVersionNotFound) return undefined;
      throw error;
    }
  }
}
