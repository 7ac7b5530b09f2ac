import { createHash } from 'node:crypto';
import { ParameterNotFoundError } from '@aws-lambda-powertools/parameters/errors';
import { describeSecretReference, type SecretReference, secretStoreOf } from '../../shared/config/deployment-config.ts';
import { SentinelError } from '../../shared/errors.ts';
import { secretsManagerClient, ssmClient } from '../clients.ts';
import { SecretsManagerSecrets } from './secrets-manager-secrets.ts';
import { SecureStringParameters } from './secure-string-parameters.ts';

/**
 * How long a key is cached: a rotated PagerDuty routing key or Opsgenie API key takes effect within five minutes,
 * with no deploy, and a busy minute reads Secrets Manager or Parameter Store once per container rather than once per
 * page.
 */
export const SECRET_MAX_AGE_SECONDS = 300;

/** How a store reads a current value: through its cache of `maxAge` seconds, or past it when `forceFetch`. */
export interface SecretReads {
  readonly maxAge: number;
  readonly forceFetch: boolean;
}

/** Where values are kept by name: Secrets Manager's secrets, or Parameter Store's SecureString parameters. */
export interface SecretStore {
  /** The value, through Powertools Parameters; a name the store does not have throws its ParameterNotFoundError. */
  current(name: string, reads: SecretReads): Promise<unknown>;
  /** The value before the current one, read past the cache; undefined when there is none. */
  previous(name: string): Promise<unknown>;
}

/** The secret or parameter is missing its JSON field, is not JSON where a field was asked for, or holds no text. */
export class SecretShapeError extends SentinelError {}

/** The secret or parameter a reference names does not exist (in the ops account and Region, where it is read). */
export class SecretNotFoundError extends SentinelError {}

/**
 * Vendor keys and URLs read at run time from Secrets Manager or Parameter Store, with a short cache (Powertools
 * Parameters). The value is never logged: errors name the secret or parameter and the field, never what they hold.
 */
export class SecretValues {
  constructor(private readonly stores: Readonly<Record<'secret' | 'parameter', SecretStore>>) {}

  /**
   * The value, or its `jsonField`, cached `maxAgeSeconds`; `fresh` skips the cache, after the vendor refused the
   * cached key.
   */
  async value(reference: SecretReference, fresh = false, maxAgeSeconds = SECRET_MAX_AGE_SECONDS): Promise<string> {
    const { store, name } = secretStoreOf(reference);
    let text: unknown;
    try {
      text = await this.stores[store].current(name, { maxAge: maxAgeSeconds, forceFetch: fresh });
    } catch (error) {
      if (!(error instanceof ParameterNotFoundError)) throw error;
      throw new SecretNotFoundError(
        `${describeSecretReference(reference)} does not exist in the ops account and Region`,
        { cause: error },
      );
    }
    return keyIn(reference, text);
  }

  /**
   * The value before the last rotation (a secret's AWSPREVIOUS version, a parameter's version before the current
   * one), read past the cache; undefined when there is none. An incident opened before a rotation is closed with the
   * key it was opened with: PagerDuty drops a resolve sent with another key.
   */
  async previous(reference: SecretReference): Promise<string | undefined> {
    const { store, name } = secretStoreOf(reference);
    const text = await this.stores[store].previous(name);
    return text === undefined ? undefined : keyIn(reference, text);
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
  const described = describeSecretReference(reference);
  if (typeof text !== 'string' || text === '') {
    throw new SecretShapeError(`${described} has no string value`);
  }
  if (reference.jsonField === undefined) return text.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SecretShapeError(`${described} is not JSON, so it has no field "${reference.jsonField}"`);
  }
  const field = (parsed as Record<string, unknown> | null)?.[reference.jsonField];
  if (typeof field !== 'string' || field === '') {
    throw new SecretShapeError(`${described} has no string field "${reference.jsonField}"`);
  }
  return field.trim();
}

/** The values the configuration names, each store built with its SDK client. */
export function secretValues(): SecretValues {
  return new SecretValues({
    secret: new SecretsManagerSecrets(secretsManagerClient()),
    parameter: new SecureStringParameters(ssmClient()),
  });
}
