import { setTimeout as sleep } from 'node:timers/promises';
import { SentinelError } from '../../shared/errors.ts';

/** What this module sends: HTTPS to PagerDuty and Opsgenie, no AWS request. */
export const IAM_ACTIONS = [] as const;

/** The vendor answered with a client error (other than 429): retrying the same request cannot help. */
export class VendorRejectedError extends SentinelError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The vendor kept throttling, failing or not answering until the retries ran out. */
export class VendorUnavailableError extends SentinelError {}

/**
 * How hard a call to a vendor API tries. The defaults keep a call within about 20 s (4 attempts of at most 4 s, and
 * at most 1.75 s of backoff between them, more when the vendor asks for it with Retry-After), so that an open and a
 * close of one notification fit the delivery function's 60 s timeout; past that the SQS record fails and comes back.
 */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly attemptTimeoutMs: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const VENDOR_RETRY: RetryPolicy = { maxAttempts: 4, attemptTimeoutMs: 4000, baseDelayMs: 250, maxDelayMs: 4000 };

export interface VendorRequest {
  /** POST unless told: GET reads, as Opsgenie's request status. */
  readonly method?: 'GET' | 'POST';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body of a POST. */
  readonly body?: unknown;
  /** What the request is, for errors: never the URL's or the headers' secrets. */
  readonly describe: string;
}

export interface VendorAnswer {
  readonly status: number;
  readonly body: string;
}

/**
 * Send a request (a JSON body, for a POST), retrying what the vendors document as retryable: 429 (rate limited) and 5xx, and also a timeout
 * or a dropped connection (PagerDuty: https://developer.pagerduty.com/docs/events-API-v2/overview/#response-codes--retry-logic;
 * Opsgenie: https://docs.opsgenie.com/docs/api-rate-limiting). Backoff is exponential with full jitter, or the
 * vendor's Retry-After when it gives one, capped by the policy. Answers 2xx; throws VendorRejectedError on another 4xx
 * and VendorUnavailableError once the attempts are spent.
 */
export async function sendJson(
  request: VendorRequest,
  policy: RetryPolicy = VENDOR_RETRY,
  random: () => number = Math.random,
): Promise<VendorAnswer> {
  let last = '';
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    let retryAfterMs: number | undefined;
    try {
      const method = request.method ?? 'POST';
      const response = await fetch(request.url, {
        method,
        headers: { 'content-type': 'application/json', ...request.headers },
        ...(method === 'POST' && { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(policy.attemptTimeoutMs),
      });
      const body = await response.text();
      if (response.status < 300) return { status: response.status, body };
      if (response.status !== 429 && response.status < 500) {
        throw new VendorRejectedError(
          `${request.describe}: HTTP ${response.status} ${withoutHeaderValues(excerpt(body), request.headers)}`,
          response.status,
        );
      }
      last = `HTTP ${response.status} ${withoutHeaderValues(excerpt(body), request.headers)}`;
      retryAfterMs = retryAfter(response.headers.get('retry-after'));
    } catch (error) {
      if (error instanceof VendorRejectedError) throw error;
      // fetch quotes a header it refuses (a key pasted with a line break in it) in its error: never pass that on.
      last =
        (error as Error).name === 'TimeoutError'
          ? `no answer within ${policy.attemptTimeoutMs} ms`
          : withoutHeaderValues(String(error), request.headers);
    }
    if (attempt < policy.maxAttempts) {
      const backoff = random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      await sleep(Math.min(policy.maxDelayMs, retryAfterMs ?? backoff));
    }
  }
  throw new VendorUnavailableError(`${request.describe}: gave up after ${policy.maxAttempts} attempts, last: ${last}`);
}

function retryAfter(header: string | null): number | undefined {
  const seconds = Number(header);
  return header !== null && Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/** The start of a vendor's answer, for an error message; the answers echo no credential. */
function excerpt(body: string): string {
  return body.replace(/\s+/g, ' ').slice(0, 300);
}

/**
 * A text with every header value of the request taken out, whole and piece by piece (a value split by a line break
 * or a blank shows up in pieces), so that an error message, and the log line that carries it, never holds a key.
 */
export function withoutHeaderValues(text: string, headers: Readonly<Record<string, string>>): string {
  const secrets = Object.values(headers)
    .flatMap((value) => [value, ...value.split(/\s+/)])
    .filter((piece) => piece.length >= 4)
    .sort((a, b) => b.length - a.length);
  return secrets.reduce((out, secret) => out.split(secret).join('[header value]'), text);
}
