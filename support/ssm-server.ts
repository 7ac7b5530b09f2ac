/**
 * A loopback fake of Parameter Store's GetParameter that the real @aws-sdk/client-ssm (and so Powertools' SSMProvider)
 * talks to unmodified: AWS JSON 1.1, `X-Amz-Target: AmazonSSM.GetParameter`, a JSON body `{ Name, WithDecryption }`
 * where the name may end in `:VERSION`, errors as `{ __type, message }`
 * (https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_GetParameter.html). It holds the documented
 * lines: a standard parameter's value is at most 4 KB and a parameter keeps its last 100 versions
 * (https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html,
 * https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_PutParameter.html); `/Name` and `Name` are one
 * parameter (https://docs.aws.amazon.com/systems-manager/latest/userguide/sysman-parameter-name-constraints.html).
 */
import { createHash } from 'node:crypto';
import { type AwsJsonProtocol, AwsJsonServer } from './aws-json-server.ts';
import {
  type FaultAnswers,
  type HttpReply,
  type LoopbackServerOptions,
  type ServiceCall,
  ServiceError,
} from './loopback-server.ts';

const PROTOCOL: AwsJsonProtocol = { service: 'SSM', version: '1.1', targetPrefix: 'AmazonSSM.' };
/** A standard parameter's value: 4 KB. */
export const STANDARD_PARAMETER_BYTES = 4096;
/** Versions a parameter keeps: putting the 101st deletes the oldest. */
export const PARAMETER_VERSIONS_KEPT = 100;
const REGION = 'us-east-1';
const ACCOUNT = '000000000000';

export type ParameterType = 'String' | 'StringList' | 'SecureString';

export async function startSsmServer(options: LoopbackServerOptions = {}): Promise<SsmServer> {
  return new SsmServer(options).listen();
}

interface GetParameterInput {
  readonly Name?: unknown;
  readonly WithDecryption?: unknown;
}

interface StoredParameter {
  readonly name: string;
  readonly type: ParameterType;
  /** Values by version, the kept ones only. */
  readonly versions: Map<number, string>;
  latest: number;
}

export class SsmServer extends AwsJsonServer<GetParameterInput> {
  protected readonly protocol = PROTOCOL;
  readonly #parameters = new Map<string, StoredParameter>();
  #afterNextAnswer: (() => void) | undefined;
  /** Every Name asked for, selector included, in order; faulted requests included. */
  readonly reads: string[] = [];
  /** The Names of the reads that asked for the value decrypted (WithDecryption), each a KMS Decrypt for AWS. */
  readonly decryptedReads: string[] = [];

  /**
   * Create a parameter, or put a new version of it, as PutParameter with Overwrite does: the version number goes up
   * by one, and beyond the 100 kept the oldest version is gone.
   */
  putParameter(name: string, value: string, type: ParameterType = 'SecureString'): void {
    if (value === '' || Buffer.byteLength(value) > STANDARD_PARAMETER_BYTES) {
      throw new RangeError(`a standard parameter's value is 1 to ${STANDARD_PARAMETER_BYTES} bytes`);
    }
    const key = keyOf(name);
    const parameter = this.#parameters.get(key) ?? { name, type, versions: new Map(), latest: 0 };
    parameter.latest += 1;
    parameter.versions.set(parameter.latest, value);
    parameter.versions.delete(parameter.latest - PARAMETER_VERSIONS_KEPT);
    this.#parameters.set(key, parameter);
  }

  /** No recorded calls or reads, no armed faults; the parameters stay. */
  override reset(): void {
    super.reset();
    this.reads.length = 0;
    this.decryptedReads.length = 0;
  }

  /** Delete a parameter and its history, as DeleteParameter does: one put again starts over at version 1. */
  deleteParameter(name: string): void {
    this.#parameters.delete(keyOf(name));
  }

  /** Run `change` once the next GetParameter has been answered, before any other request: a change between reads. */
  afterNextAnswer(change: () => void): void {
    this.#afterNextAnswer = change;
  }

  protected handle({ operation, input }: ServiceCall<GetParameterInput>): HttpReply {
    if (operation !== 'GetParameter') {
      throw new ServiceError('UnknownOperationException', `The loopback fake does not implement ${operation}`);
    }
    const asked = String(input.Name ?? '');
    const decrypted = input.WithDecryption === true;
    this.reads.push(asked);
    if (decrypted) this.decryptedReads.push(asked);
    const reply = this.#getParameter(asked, decrypted);
    const change = this.#afterNextAnswer;
    this.#afterNextAnswer = undefined;
    change?.();
    return reply;
  }

  #getParameter(asked: string, withDecryption: boolean): HttpReply {
    if (asked.startsWith('arn:')) {
      throw new ServiceError('ValidationException', 'The loopback fake takes parameter names, not ARNs');
    }
    const [name = '', selector] = asked.split(':');
    const parameter = this.#parameters.get(keyOf(name));
    if (!parameter) throw new ServiceError('ParameterNotFound', '');
    if (selector !== undefined && !/^\d+$/.test(selector)) {
      throw new ServiceError('ValidationException', 'The loopback fake does not implement parameter labels');
    }
    const version = selector === undefined ? parameter.latest : Number(selector);
    const value = parameter.versions.get(version);
    if (value === undefined) {
      throw new ServiceError(
        'ParameterVersionNotFound',
        `Systems Manager could not find version ${version} of ${name}.`,
      );
    }
    return this.reply({
      Parameter: {
        Name: parameter.name,
        Type: parameter.type,
        // Without WithDecryption a SecureString comes back as its ciphertext, base64 as KMS writes it.
        Value: parameter.type === 'SecureString' && !withDecryption ? ciphertextOf(parameter.name, version) : value,
        Version: version,
        ...(selector !== undefined && { Selector: `:${selector}` }),
        LastModifiedDate: 1_700_000_000,
        ARN: `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/${keyOf(parameter.name)}`,
        DataType: 'text',
      },
    });
  }

  protected readonly faultAnswers: FaultAnswers = {
    throttle: ['ThrottlingException', 'Rate exceeded', 400],
    'server-error': ['InternalServerError', 'Internal server error (injected fault)', 500],
    unavailable: ['ServiceUnavailable', 'Service unavailable (injected fault)', 503],
  };
}

/** `/Name` and `Name` are the same parameter at the root; a name with levels always starts with "/". */
function keyOf(name: string): string {
  return name.replace(/^\//, '');
}

/** What stands for a SecureString's ciphertext: KMS's `AQICAH` prefix and bytes that do not hold the value. */
function ciphertextOf(name: string, version: number): string {
  return `AQICAH${createHash('sha256').update(`${name}:${version}`).digest('base64')}`;
}
