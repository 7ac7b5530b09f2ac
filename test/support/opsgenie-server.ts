/**
 * A loopback fake of Opsgenie's Alert API, holding the line the real one documents
 * (https://docs.opsgenie.com/docs/alert-api): `Authorization: GenieKey KEY` or 401; `POST /v2/alerts` to create,
 * `POST /v2/alerts/{alias}/notes?identifierType=alias` and `.../close?identifierType=alias`; 422 for a message over 130
 * characters, an alias over 512, a description over 15,000, more than 20 tags or one over 50, a note over 25,000;
 * 202 `{ result, took, requestId }` for an accepted request, which Opsgenie then processes asynchronously. It keeps the
 * alerts as Opsgenie would: a create with the alias of an open alert adds to its count (deduplication); a note or a
 * close finds the open alert by alias, and is recorded as a failed request when there is none.
 *
 * `GET /v2/alerts/requests/{requestId}` answers the request's status as Get Request Status does: 404 while it is
 * still being processed (the first `processingReads` reads of it), then 200 with `data: { success, action,
 * processedAt, integrationId, isSuccess, status, alertId, alias }`; `failNextRequests` makes the next requests fail
 * when processed, as Opsgenie fails a request it cannot carry out.
 */
import type { LoopbackServerOptions, ServiceCall } from '../../support/loopback-server.ts';
import { type HttpReply, jsonReply, ServiceError } from '../../support/loopback-server.ts';
import { type VendorInput, VendorServer } from '../../support/vendor-server.ts';

export interface OpsgenieAlert {
  readonly alias: string;
  status: 'open' | 'closed';
  /** Creates folded into it by deduplication, the first included. */
  count: number;
  readonly message: string;
  readonly details: Record<string, string>;
  readonly notes: string[];
}

export async function startOpsgenieServer(options: LoopbackServerOptions = {}): Promise<OpsgenieServer> {
  return new OpsgenieServer(options).listen();
}

const ACTION = /^\/v2\/alerts\/([^/]+)\/(notes|close)$/;
const REQUEST_STATUS = /^\/v2\/alerts\/requests\/([^/]+)$/;

interface RequestStatus {
  readonly action: string;
  readonly alias: string;
  readonly isSuccess: boolean;
  readonly status: string;
  reads: number;
}

export class OpsgenieServer extends VendorServer {
  readonly apiKeys = new Set<string>();
  /** Every alert ever created, in order: two with one alias means deduplication failed. */
  readonly alerts: OpsgenieAlert[] = [];
  /** Requests accepted with 202 that failed when processed: a note or close for an alias with no open alert. */
  readonly failedRequests: string[] = [];
  /** How many reads of a request's status answer 404 (still processing) before it is processed. */
  processingReads = 1;
  /** The next this-many accepted requests fail when processed, with this status. */
  failNextRequests = 0;
  readonly #requests = new Map<string, RequestStatus>();

  override reset(): void {
    super.reset();
    this.alerts.length = 0;
    this.failedRequests.length = 0;
    this.processingReads = 1;
    this.failNextRequests = 0;
    this.#requests.clear();
  }

  alertsFor(alias: string): OpsgenieAlert[] {
    return this.alerts.filter((alert) => alert.alias === alias);
  }

  protected operationOf(pathname: string): string {
    if (pathname === '/v2/alerts') return 'CreateAlert';
    if (REQUEST_STATUS.test(pathname)) return 'GetRequestStatus';
    const action = ACTION.exec(pathname)?.[2];
    if (action === 'notes') return 'AddNote';
    if (action === 'close') return 'CloseAlert';
    throw new ServiceError('NotFound', `no such endpoint ${pathname}`, 404);
  }

  protected serve({ operation, input }: ServiceCall<VendorInput>, requestId: string): HttpReply {
    const auth = /^GenieKey (.+)$/.exec(String(input.headers.authorization ?? ''))?.[1];
    if (!auth || !this.apiKeys.has(auth))
      return jsonReply(401, { message: 'Could not authenticate', took: 0, requestId });
    if (operation === 'GetRequestStatus')
      return this.#status(decodeURIComponent(REQUEST_STATUS.exec(input.path)?.[1] ?? ''), requestId);
    const problem = invalid(operation, input);
    if (problem) return jsonReply(422, { message: problem, took: 0, requestId });
    const body = input.body;
    const alias =
      operation === 'CreateAlert'
        ? String(body.alias ?? body.message)
        : decodeURIComponent(ACTION.exec(input.path)?.[1] ?? '');
    if (this.failNextRequests > 0) {
      this.failNextRequests--;
      this.failedRequests.push(`${operation} ${alias}: Internal error processing the request`);
      this.#requests.set(requestId, {
        action: operation,
        alias,
        isSuccess: false,
        status: 'Internal error processing the request',
        reads: 0,
      });
      return jsonReply(202, { result: 'Request will be processed', took: 0.01, requestId });
    }
    let status =
      operation === 'CreateAlert' ? 'Created alert' : operation === 'AddNote' ? 'Added note' : 'Closed alert';
    if (operation === 'CreateAlert') {
      const alias = String(body.alias ?? body.message);
      const open = this.alerts.find((a) => a.alias === alias && a.status === 'open');
      if (open) open.count += 1;
      else {
        this.alerts.push({
          alias,
          status: 'open',
          count: 1,
          message: String(body.message),
          details: (body.details ?? {}) as Record<string, string>,
          notes: [],
        });
      }
    } else {
      const open = this.alerts.find((a) => a.alias === alias && a.status === 'open');
      if (!open) {
        status = 'Alert does not exist';
        this.failedRequests.push(`${operation} ${alias}: ${status}`);
      } else if (operation === 'AddNote') open.notes.push(String(body.note));
      else open.status = 'closed';
    }
    this.#requests.set(requestId, {
      action: operation,
      alias,
      isSuccess: status !== 'Alert does not exist',
      status,
      reads: 0,
    });
    return jsonReply(202, { result: 'Request will be processed', took: 0.01, requestId });
  }

  #status(id: string, requestId: string): HttpReply {
    const request = this.#requests.get(id);
    if (!request || request.reads++ < this.processingReads) {
      return jsonReply(404, { message: 'Request not found. It might not be processed, yet.', took: 0, requestId });
    }
    const { action, alias, isSuccess, status } = request;
    return jsonReply(200, {
      data: {
        success: isSuccess,
        action,
        processedAt: new Date().toISOString(),
        integrationId: 'loopback',
        isSuccess,
        status,
        alertId: alias,
        alias,
      },
      took: 0.001,
      requestId,
    });
  }

  protected encodeError(error: ServiceError, requestId: string): HttpReply {
    return jsonReply(error.status, { message: error.message, took: 0, requestId });
  }
}

function invalid(operation: string, input: VendorInput): string | undefined {
  const body = input.body;
  const tooLong = (field: string, limit: number) =>
    typeof body[field] === 'string' && (body[field] as string).length > limit
      ? `${field} should be at most ${limit} characters`
      : undefined;
  if (operation !== 'CreateAlert') {
    if (input.query.get('identifierType') !== 'alias') return 'identifierType must be alias for an alias';
    return operation === 'AddNote'
      ? typeof body.note !== 'string' || body.note === ''
        ? 'note is required'
        : tooLong('note', 25_000)
      : tooLong('note', 25_000);
  }
  if (typeof body.message !== 'string' || body.message === '') return 'Message can not be empty.';
  const tags = (body.tags ?? []) as unknown[];
  if (tags.length > 20) return 'tags should have at most 20 items';
  if (tags.some((tag) => typeof tag !== 'string' || tag.length > 50)) return 'each tag should be at most 50 characters';
  return tooLong('message', 130) ?? tooLong('alias', 512) ?? tooLong('description', 15_000);
}
