/**
 * A loopback fake of PagerDuty's Events API v2 (`POST /v2/enqueue`), holding the line the real one documents
 * (https://developer.pagerduty.com/docs/events-API-v2/trigger-events/ and .../overview/): 202 with
 * `{ status: "success", dedup_key }` for an accepted event; 400 `{ status: "invalid event", errors }` for an unknown
 * routing key, a `dedup_key` over 255 characters, a trigger without summary, source or a valid severity, a summary over
 * 1024 characters, or an event over 512 KB; 429 and 5xx when a fault is injected. It keeps the incidents as PagerDuty
 * would: a trigger opens one, or adds an alert to the open one with the same `dedup_key`; a resolve closes it. An
 * incident belongs to the integration whose routing key opened it: an event with the same `dedup_key` and another
 * routing key does not reach it (a resolve is dropped, a trigger opens another incident).
 */
import type { LoopbackServerOptions, ServiceCall } from './loopback-server.ts';
import { type HttpReply, jsonReply, ServiceError } from './loopback-server.ts';
import { type VendorInput, VendorServer } from './vendor-server.ts';

const MAX_EVENT_BYTES = 512 * 1024;
const SEVERITIES = new Set(['critical', 'error', 'warning', 'info']);

export interface PagerDutyIncident {
  readonly dedupKey: string;
  /** The routing key of the integration it was opened through. */
  readonly routingKey: string;
  status: 'triggered' | 'resolved';
  /** Trigger events folded into it: the first, then updates and reminders. */
  readonly triggers: Record<string, unknown>[];
  readonly links: unknown[];
}

export async function startPagerDutyServer(options: LoopbackServerOptions = {}): Promise<PagerDutyServer> {
  return new PagerDutyServer(options).listen();
}

export class PagerDutyServer extends VendorServer {
  /** Routing keys of the services that accept events; rotate by replacing. */
  readonly routingKeys = new Set<string>();
  /** Every incident ever opened, in order: two with one key means the key failed to dedup. */
  readonly incidents: PagerDutyIncident[] = [];
  /** Resolves that found no open incident (PagerDuty accepts and drops them). */
  readonly unmatchedResolves: string[] = [];

  override reset(): void {
    super.reset();
    this.incidents.length = 0;
    this.unmatchedResolves.length = 0;
  }

  incidentsFor(dedupKey: string): PagerDutyIncident[] {
    return this.incidents.filter((incident) => incident.dedupKey === dedupKey);
  }

  protected operationOf(pathname: string): string {
    if (pathname !== '/v2/enqueue') throw new ServiceError('NotFound', `no such endpoint ${pathname}`, 404);
    return 'Enqueue';
  }

  protected serve({ input }: ServiceCall<VendorInput>): HttpReply {
    const event = input.body;
    const errors = invalid(event, this.routingKeys);
    if (errors.length > 0)
      return jsonReply(400, { status: 'invalid event', message: 'Event object is invalid', errors });
    const dedupKey = String(event.dedup_key);
    const routingKey = String(event.routing_key);
    const open = this.incidents.find(
      (i) => i.dedupKey === dedupKey && i.routingKey === routingKey && i.status === 'triggered',
    );
    if (event.event_action === 'trigger') {
      if (open) open.triggers.push(event);
      else {
        const links = [event.links ?? []].flat();
        this.incidents.push({ dedupKey, routingKey, status: 'triggered', triggers: [event], links });
      }
    } else if (event.event_action === 'resolve') {
      if (open) open.status = 'resolved';
      else this.unmatchedResolves.push(dedupKey);
    }
    return jsonReply(202, { status: 'success', message: 'Event processed', dedup_key: dedupKey });
  }

  protected encodeError(error: ServiceError): HttpReply {
    return jsonReply(error.status, { status: error.code, message: error.message });
  }
}

function invalid(event: Record<string, unknown>, routingKeys: ReadonlySet<string>): string[] {
  const errors: string[] = [];
  if (Buffer.byteLength(JSON.stringify(event)) > MAX_EVENT_BYTES) errors.push('Event is larger than 512 KB.');
  if (typeof event.routing_key !== 'string' || !routingKeys.has(event.routing_key)) errors.push('Invalid routing key');
  if (!['trigger', 'acknowledge', 'resolve'].includes(String(event.event_action))) {
    errors.push("'event_action' is invalid");
  }
  const key = event.dedup_key;
  if (typeof key !== 'string' || key.length === 0 || key.length > 255) {
    errors.push("'dedup_key' must be a string of 1 to 255 characters");
  }
  if (event.event_action === 'trigger') {
    const payload = (event.payload ?? {}) as Record<string, unknown>;
    if (typeof payload.summary !== 'string' || payload.summary.length === 0)
      errors.push("'payload.summary' is missing");
    else if (payload.summary.length > 1024) errors.push("'payload.summary' is longer than 1024 characters");
    if (typeof payload.source !== 'string' || payload.source.length === 0) errors.push("'payload.source' is missing");
    if (!SEVERITIES.has(String(payload.severity))) errors.push("'payload.severity' is invalid");
    for (const link of [event.links ?? []].flat() as { href?: unknown }[]) {
      if (typeof link?.href !== 'string') errors.push("'links' must have an 'href'");
    }
  }
  return errors;
}
