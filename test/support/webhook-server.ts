/**
 * A loopback webhook: any path accepts a JSON POST with 200 and keeps it, as a chat or incident tool's incoming
 * webhook does; a path that was retired answers 410 Gone, as a revoked webhook URL does. The fault plan of the vendor
 * fakes (429, 5xx, dropped connections) applies.
 */
import {
  type HttpReply,
  jsonReply,
  type LoopbackServerOptions,
  type ServiceCall,
  type ServiceError,
} from '../../support/loopback-server.ts';
import { type VendorInput, VendorServer } from '../../support/vendor-server.ts';

export interface WebhookPost {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

export async function startWebhookServer(options: LoopbackServerOptions = {}): Promise<WebhookServer> {
  return new WebhookServer(options).listen();
}

export class WebhookServer extends VendorServer {
  /** Every POST accepted, in order. */
  readonly posts: WebhookPost[] = [];
  /** Paths that answer 410 Gone: the URL was revoked. */
  readonly retired = new Set<string>();

  override reset(): void {
    super.reset();
    this.posts.length = 0;
    this.retired.clear();
  }

  protected operationOf(): string {
    return 'Post';
  }

  protected serve({ input }: ServiceCall<VendorInput>): HttpReply {
    if (this.retired.has(input.path)) return jsonReply(410, { message: 'this webhook was revoked' });
    this.posts.push({ path: input.path, body: input.body });
    return jsonReply(200, { ok: true });
  }

  protected encodeError(error: ServiceError): HttpReply {
    return jsonReply(error.status, { error: error.code, message: error.message });
  }
}
