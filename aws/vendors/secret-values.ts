import { createHash } from 'node:crypto';
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { SecretReference } from '../../shared/config/deployment-config.ts';
import { SentinelError } from '../../shared/errors.ts';

/** What this module sends: GetSecretValue on the secrets the config names, through Powertools' SecretsProvider and, for the previous version, directly. */
export const IAM_ACTIONS = ['secretsmanager:GetSecretValue'] as const;

/**
 * How long a key is cached: a rotated PagerDuty routing key or Opsgenie API key takes effect within five minutes,
 * with no deploy, and a busy minute reads Secrets Manager once per container rather than once per page.
 */
export const SECRET_MAX_AGE_SECONDS = 300;

/** The secret is missing its JSON field, or is not JSON where a field was asked for. */
export class SecretShapeError extends SentinelError {}

/**
 * Vendor keys read at run time from Secrets Manager, with a short cache (Powertools Parameters). The value is never
 * logged: errors name the secret and the field, never what they hold.
 */
export class SecretValues {
  constructor(
    private readonly provider: SecretsProvider,
    private readonly client: SecretsManagerClient,
  ) {}

  /** The secret's value, or its `jsonField`; `fresh` skips the cache, after the vendor refused the cached key. */
  async value(reference: SecretReference, fresh = false): Promise<string> {
    const text = await this.provider.get(reference.secretName, {
      maxAge: SECRET_MAX_AGE_SECONDS,
      forceFetch: fresh,
    });
    return keyIn(reference, text);
  }

  /**
   * The value before the last rotation (the version labelled AWSPREVIOUS, which Secrets Manager moves the old value to
   * when a new one is put), read past the cache; undefined when the secret was never rotated. An incident opened
   * before a rotation is closed with the key it was opened with: PagerDuty drops a resolve sent with another key.
   */
  async previous(reference: SecretReference): Promise<string | undefined> {
    try {
      const answer = await this.client.send(
        new GetSecretValueCommand({ SecretId: reference.secretName, VersionStage: 'AWSPREVIOUS' }),
      );
      return keyIn(reference, answer.SecretString);
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  }
}

/**
 * What identifies a key in the delivery records without holding it: the start of its SHA-256, from which the key
 * cannot be recovered. An incident records the fingerprint of the key it was opened with.
 */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

function keyIn(reference: SecretReference, text: unknown): string {
  if (typeof text !== 'string' || text === '') {
    throw new SecretShapeError(`secret ${reference.secretName} has no string value (SecretString)`);
  }
  if (reference.jsonField === undefined) return text.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SecretShapeError(
      `secret ${reference.secretName} is not JSON, so it has no field "${reference.jsonField}"`,
    );
  }
  const field = (parsed as Record<string, unknown> | null)?.[reference.jsonField];
  if (typeof field !== 'string' || field === '') {
    throw new SecretShapeError(`secret ${reference.secretName} has no string field "${reference.jsonField}"`);
  }
  return field.trim();
}

export function secretValues(client: SecretsManagerClient): SecretValues {
  return new SecretValues(new SecretsProvider({ awsSdkV3Client: client }), client);
}
