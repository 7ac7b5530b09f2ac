/**
 * What the loopback PagerDuty and Opsgenie fakes share: JSON over HTTP with the vendor's error bodies, the fault plan
 * (429, 5xx, dropped connections, answers slower than the client waits), and a fault on the first attempt of every
 * distinct request, which is how a wire test shows that each call is retried and nothing is lost or doubled.
 */
import type { ErrorFaultKind } from './faults.ts';
import {
  type FaultAnswers,
  type HttpReply,
  LoopbackServer,
  type RawRequest,
  type ServiceCall,
  ServiceError,
} from './loopback-server.ts';

export interface VendorInput {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: RawRequest['headers'];
  readonly body: Record<string, unknown>;
  /** The request as sent, to recognise a retry of it. */
  readonly fingerprint: string;
}

export abstract class VendorServer extends LoopbackServer<VendorInput> {
  #firstAttemptFaults: readonly ErrorFaultKind[] = [];
  #faulted = 0;
  readonly #seen = new Set<string>();

  /** Fail the first attempt of every distinct request from now on, cycling through these faults. */
  failEveryFirstAttempt(kinds: readonly ErrorFaultKind[]): void {
    this.#firstAttemptFaults = kinds;
  }

  override reset(): void {
    super.reset();
    this.#firstAttemptFaults = [];
    this.#seen.clear();
  }

  protected decode({ headers, body, path }: RawRequest): ServiceCall<VendorInput> {
    const url = new URL(path, 'http://vendor');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body || '{}');
    } catch {
      throw new ServiceError('BadRequest', 'The request body is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ServiceError('BadRequest', 'The request body is not a JSON object');
    }
    return {
      operation: this.operationOf(url.pathname),
      input: {
        path: url.pathname,
        query: url.searchParams,
        headers,
        body: parsed as Record<string, unknown>,
        fingerprint: `${path} ${body}`,
      },
    };
  }

  protected handle(call: ServiceCall<VendorInput>, requestId: string): HttpReply {
    if (this.#firstAttemptFaults.length > 0 && !this.#seen.has(call.input.fingerprint)) {
      this.#seen.add(call.input.fingerprint);
      const kind = this.#firstAttemptFaults[this.#faulted++ % this.#firstAttemptFaults.length] ?? 'throttle';
      this.faults.fired[kind] += 1;
      return this.encodeError(this.faultError(kind), requestId);
    }
    return this.serve(call, requestId);
  }

  protected abstract operationOf(pathname: string): string;

  protected abstract serve(call: ServiceCall<VendorInput>, requestId: string): HttpReply;

  protected readonly faultAnswers: FaultAnswers = {
    throttle: ['RateLimited', 'Rate limit exceeded', 429],
    'server-error': ['InternalServerError', 'Internal server error (injected fault)', 500],
    unavailable: ['ServiceUnavailable', 'Service unavailable (injected fault)', 503],
  };
}
