/**
 * A loopback fake of Secrets Manager's GetSecretValue that the real @aws-sdk/client-secrets-manager (and so
 * Powertools' SecretsProvider) talks to unmodified: AWS JSON 1.1, `X-Amz-Target: secretsmanager.GetSecretValue`, a
 * JSON body `{ SecretId }`, errors as `{ __type, message }`
 * (https://docs.aws.amazon.com/secretsmanager/latest/apireference/API_GetSecretValue.html).
 */
import { type AwsJsonProtocol, AwsJsonServer } from './aws-json-server.ts';
import {
  type FaultAnswers,
  type HttpReply,
  type LoopbackServerOptions,
  type ServiceCall,
  ServiceError,
} from './loopback-server.ts';

const PROTOCOL: AwsJsonProtocol = { service: 'Secrets Manager', version: '1.1', targetPrefix: 'secretsmanager.' };

export async function startSecretsManagerServer(options: LoopbackServerOptions = {}): Promise<SecretsManagerServer> {
  return new SecretsManagerServer(options).listen();
}

interface SecretInput {
  readonly SecretId?: unknown;
  readonly VersionStage?: unknown;
}

export class SecretsManagerServer extends AwsJsonServer<SecretInput> {
  protected readonly protocol = PROTOCOL;
  readonly #secrets = new Map<string, { value: string; version: number; previous?: string }>();
  /** Every SecretId asked for, in order, faulted requests included. */
  readonly reads: string[] = [];

  /**
   * Create or rotate a secret: a new version with this value, labelled AWSCURRENT; the one it replaces becomes
   * AWSPREVIOUS, as PutSecretValue does.
   */
  putSecret(name: string, value: string): void {
    const old = this.#secrets.get(name);
    this.#secrets.set(name, { value, version: (old?.version ?? 0) + 1, ...(old && { previous: old.value }) });
  }

  protected handle({ operation, input }: ServiceCall<SecretInput>): HttpReply {
    if (operation !== 'GetSecretValue') {
      throw new ServiceError('UnknownOperationException', `The loopback fake does not implement ${operation}`);
    }
    const name = String(input.SecretId ?? '');
    this.reads.push(name);
    const secret = this.#secrets.get(name);
    const stage = input.VersionStage === undefined ? 'AWSCURRENT' : String(input.VersionStage);
    const value = stage === 'AWSPREVIOUS' ? secret?.previous : stage === 'AWSCURRENT' ? secret?.value : undefined;
    if (!secret || value === undefined) {
      throw new ServiceError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    }
    return this.reply({
      ARN: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${name}-AbCdEf`,
      Name: name,
      SecretString: value,
      VersionId: `v${stage === 'AWSPREVIOUS' ? secret.version - 1 : secret.version}`,
      VersionStages: [stage],
      CreatedDate: 1_700_000_000,
    });
  }

  protected readonly faultAnswers: FaultAnswers = {
    throttle: ['ThrottlingException', 'Rate exceeded', 400],
    'server-error': ['InternalServiceError', 'Internal service error (injected fault)', 500],
    unavailable: ['ServiceUnavailable', 'Service unavailable (injected fault)', 503],
  };
}
