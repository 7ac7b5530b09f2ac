import { SentinelError } from '../shared/errors.ts';

/**
 * The exit codes of every `sentinel` command, one table (README.md and docs/operating.md print it): a check that
 * failed is kept apart from an AWS or a network that could not be asked, so that `doctor`'s "coverage incomplete"
 * never reads as "could not tell".
 */
export const EXIT_CODES = {
  /** Done: every check passed. */
  done: 0,
  /** A check, an expectation or a publish failed: doctor's coverage is incomplete, replay --check failed, ... */
  failed: 1,
  /** The command line or an input file is wrong. */
  usage: 2,
  /** AWS or the network could not be asked: credentials, permissions, throttling, an endpoint out of reach. */
  unreachable: 3,
} as const;

/** AWS or the network could not be asked what the command needs: exit 3. */
export class AwsRequestError extends SentinelError {}

/** Network failures Node reports by `code` (https://nodejs.org/api/errors.html#common-system-errors), and DNS's. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/** Errors of the SDK's credential chain and of its requests that never got an answer. */
const SDK_CLIENT_ERRORS = new Set(['CredentialsProviderError', 'TokenProviderError', 'TimeoutError', 'AbortError']);

/**
 * The AWS or network failure an error is, as one line with what to check; undefined for anything else (a bug, which
 * keeps its stack). An AWS service error carries `$metadata` (the SDK's ServiceException); a network failure a Node
 * system error `code`, on itself or on its cause.
 */
export function awsFailure(error: unknown): AwsRequestError | undefined {
  if (error instanceof AwsRequestError) return error;
  // Duck-typed: an error raised by Node's own sockets may come from another realm than this module's Error.
  if (!isErrorLike(error)) return undefined;
  const code = networkCode(error);
  if (code !== undefined) {
    return new AwsRequestError(
      `could not reach AWS (${code}): ${error.message}. Check the network, AWS_REGION and any AWS_ENDPOINT_URL_* setting.`,
      { cause: error },
    );
  }
  if (SDK_CLIENT_ERRORS.has(error.name) && !('$metadata' in error && statusOf(error) !== undefined)) {
    return new AwsRequestError(
      `could not ask AWS: ${error.name}: ${error.message}. Check the credentials (AWS_PROFILE, aws sso login) and the network.`,
      { cause: error },
    );
  }
  if ('$metadata' in error) {
    const status = statusOf(error);
    return new AwsRequestError(
      `AWS refused the request: ${error.name}${status ? ` (HTTP ${status})` : ''}: ${error.message}. ${hintFor(error.name, status)}`,
      { cause: error },
    );
  }
  return undefined;
}

function isErrorLike(value: unknown): value is Error {
  return typeof value === 'object' && value !== null && typeof (value as Error).message === 'string';
}

function statusOf(error: Error): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function networkCode(error: Error): string | undefined {
  for (let cause: unknown = error, depth = 0; isErrorLike(cause) && depth < 5; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    // The SDK wraps what is not an Error of its own realm ("AWS SDK error wrapper for Error: connect ECONNREFUSED").
    const named = /\b(E[A-Z_]+|UND_ERR_[A-Z_]+)\b/.exec(cause.message)?.[1];
    if (named && NETWORK_CODES.has(named)) return named;
    const { errors } = cause as { errors?: unknown[] };
    cause = Array.isArray(errors) ? errors[0] : cause.cause;
  }
  return undefined;
}

function hintFor(name: string, status: number | undefined): string {
  if (/ExpiredToken|InvalidClientTokenId|UnrecognizedClient|InvalidSignature|SignatureDoesNotMatch/.test(name)) {
    return 'The credentials are not valid or have expired: renew them (aws sso login, AWS_PROFILE).';
  }
  if (/AccessDenied|UnauthorizedOperation|AuthorizationError/.test(name) || status === 403) {
    return 'The caller lacks a permission: see what the command needs with --help.';
  }
  if (/Throttl|TooManyRequests|LimitExceeded|RequestLimit/.test(name) || status === 429) {
    return 'AWS is throttling the caller: try again in a minute.';
  }
  if (/ResourceNotFound|NotFound|NoSuch/.test(name) || status === 404) {
    return 'Check the name given and the Region (AWS_REGION).';
  }
  return status !== undefined && status >= 500
    ? 'AWS failed to answer: try again.'
    : 'Check the Region and the names given.';
}
