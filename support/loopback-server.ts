/**
 * HTTP plumbing shared by the loopback AWS fakes: listening on an ephemeral loopback port, reading (possibly
 * gzip-compressed) bodies, counting calls, and applying the fault plan before a service sees the request. Each
 * service only says how its wire protocol names operations and encodes results and errors.
 */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { type ErrorFaultKind, FaultPlan, type FaultPlanOptions, sdkAttempt } from './faults.ts';

const gunzipAsync = promisify(gunzip);

/** An error answered in the service's own wire shape; `code` is the AWS error code the SDK keys its errors on. */
export class ServiceError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(code: string, message: string, status = 400) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
  }

  /** Who AWS blames for the failure; both protocols put it on the wire next to the code. */
  get fault(): 'Sender' | 'Receiver' {
    return this.status >= 500 ? 'Receiver' : 'Sender';
  }
}

export interface HttpReply {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

export interface RawRequest {
  headers: IncomingHttpHeaders;
  body: string;
  /** The request's path, which REST protocols name the operation by. */
  path: string;
}

export interface ServiceCall<Input> {
  operation: string;
  input: Input;
  /** The Region the request was signed for (SigV4's credential scope), for a fake that keeps Regions apart. */
  region?: string;
}

/** The Region of a SigV4-signed request: `Credential=AKID/DATE/REGION/SERVICE/aws4_request`. */
export function signedRegion(headers: IncomingHttpHeaders): string | undefined {
  return /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(String(headers.authorization ?? ''))?.[1];
}

export type LoopbackServerOptions = FaultPlanOptions;

/** What a service answers to each kind of error fault: its error code, message and HTTP status. */
export type FaultAnswers = Readonly<Record<ErrorFaultKind, readonly [code: string, message: string, status: number]>>;

export abstract class LoopbackServer<Input> {
  readonly faults: FaultPlan;
  readonly #calls = new Map<string, number>();
  #server: Server | undefined;
  #endpoint: string | undefined;

  constructor(options: LoopbackServerOptions = {}) {
    this.faults = new FaultPlan(options);
  }

  /** `http://127.0.0.1:<port>`, for the SDK client's `endpoint`. */
  get endpoint(): string {
    if (this.#endpoint === undefined) {
      throw new Error(`${this.constructor.name} is not listening`);
    }
    return this.#endpoint;
  }

  /** Requests received per operation, faulted ones and retries included. */
  get calls(): Record<string, number> {
    return Object.fromEntries(this.#calls);
  }

  async listen(): Promise<this> {
    const server = createServer((request, response) => {
      void this.#serve(request, response);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    this.#server = server;
    this.#endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (!server) {
      return;
    }
    this.#server = undefined;
    const closed = new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    // The SDK keeps connections alive; without this `close` would wait for them to time out.
    server.closeAllConnections();
    await closed;
  }

  /** Back to the state right after start: no recorded calls, no armed faults, counters at zero. */
  reset(): void {
    this.#calls.clear();
    this.faults.reset();
  }

  /** Reads the operation and its input from a request; throws `ServiceError` for requests the service rejects. */
  protected abstract decode(request: RawRequest): ServiceCall<Input>;

  /** Runs an operation; throws `ServiceError` to answer with an error. */
  protected abstract handle(call: ServiceCall<Input>, requestId: string): HttpReply;

  protected abstract encodeError(error: ServiceError, requestId: string): HttpReply;

  /** The errors the real service answers when it throttles, fails internally or is unavailable. */
  protected abstract readonly faultAnswers: FaultAnswers;

  protected faultError(kind: ErrorFaultKind): ServiceError {
    const [code, message, status] = this.faultAnswers[kind];
    return new ServiceError(code, message, status);
  }

  async #serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    let reply: HttpReply;
    try {
      const body = await readBody(request);
      if (this.faults.latencyMs > 0) {
        await sleep(this.faults.latencyMs);
      }
      const call = this.decode({ headers: request.headers, body, path: request.url ?? '/' });
      this.#calls.set(call.operation, (this.#calls.get(call.operation) ?? 0) + 1);
      const fault = this.faults.take(call.operation, sdkAttempt(request.headers['amz-sdk-request']));
      if (fault?.kind === 'drop') {
        request.socket.destroy();
        return;
      }
      if (fault?.kind === 'slow') {
        await sleep(fault.delayMs);
      }
      reply =
        fault === undefined || fault.kind === 'slow'
          ? this.handle(call, requestId)
          : this.encodeError(this.faultError(fault.kind), requestId);
    } catch (error) {
      reply = this.encodeError(asServiceError(error, this.faultError('server-error')), requestId);
    }
    // The server may have been closed, or the client gone, while the answer was delayed.
    if (response.destroyed) {
      return;
    }
    response.writeHead(reply.status, {
      ...reply.headers,
      'content-type': reply.contentType,
      'content-length': Buffer.byteLength(reply.body),
      'x-amzn-RequestId': requestId,
    });
    response.end(reply.body);
  }
}

/** An answer whose body is `body` as JSON: `application/json`, unless the protocol names a type of its own. */
export function jsonReply(status: number, body: unknown, contentType = 'application/json'): HttpReply {
  return { status, contentType, body: JSON.stringify(body) };
}

/**
 * An error as the awsQueryCompatible AWS JSON 1.0 services answer it: the type in the body, the code and who is at
 * fault in a header.
 */
export function awsJsonErrorReply(error: ServiceError, type: string): HttpReply {
  return {
    ...jsonReply(error.status, { __type: type, message: error.message }, 'application/x-amz-json-1.0'),
    headers: { 'x-amzn-query-error': `${error.code};${error.fault}` },
  };
}

/**
 * An error as the REST-JSON protocol answers it: its code in the `x-amzn-ErrorType` header, its message and any
 * fields the service's error shape adds in the body.
 */
export function restJsonErrorReply(error: ServiceError, fields: Readonly<Record<string, unknown>> = {}): HttpReply {
  return {
    ...jsonReply(error.status, { message: error.message, ...fields }),
    headers: { 'x-amzn-ErrorType': error.code },
  };
}

/** Expected rejections pass through; anything else is a bug in a fake, surfaced as an internal error naming it. */
function asServiceError(error: unknown, internal: ServiceError): ServiceError {
  if (error instanceof ServiceError) {
    return error;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return new ServiceError(internal.code, `Loopback fake failed: ${detail}`, internal.status);
}

/** The request body as text; the SDK gzips large PutMetricData bodies (its requestCompression trait). */
async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    chunks.push(chunk as Buffer);
  }
  const raw = Buffer.concat(chunks);
  const bytes = request.headers['content-encoding'] === 'gzip' ? await gunzipAsync(raw) : raw;
  return bytes.toString('utf8');
}
