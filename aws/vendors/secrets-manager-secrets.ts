import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { SecretReads, SecretStore } from './secret-values.ts';

/** What this module sends: GetSecretValue on the secrets the config names, through Powertools' SecretsProvider and, for the previous version, directly. */
export const IAM_ACTIONS = ['secretsmanager:GetSecretValue'] as const;

/** Secrets of Secrets Manager, by name, read through Powertools' SecretsProvider and its cache. */
export class SecretsManagerSecrets implements SecretStore {
  readonly #provider: SecretsProvider;

  constructor(private readonly client: SecretsManagerClient) {
    this.#provider = new SecretsProvider({ awsSdkV3Client: client });
  }

  current(name: string, reads: SecretReads): Promise<unknown> {
    return this.#provider.get(name, { ...reads, throwOnMissing: true });
  }

  /**
   * The version labelled AWSPREVIOUS, which Secrets Manager moves the old value to when a new one is put; undefined
   * when the secret was never rotated.
   */
  async previous(name: string): Promise<unknown> {
    try {
      const answer = await this.client.send(new GetSecretValueCommand({ SecretId: name, VersionStage: 'AWSPREVIOUS' }));
      return answer.SecretString;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  }
}
