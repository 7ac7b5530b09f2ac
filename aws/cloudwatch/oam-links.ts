import { createHash, createHmac } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { SentinelError } from '../../shared/errors.ts';

/** What this module sends: ListAttachedLinks, by the monitoring account, on one of its sinks. */
export const IAM_ACTIONS = ['oam:ListAttachedLinks'] as const;

/**
 * The one OAM read the doctor makes is a signed request of its own, rather than one more SDK client package for a
 * single call, with the SDK's credential chain and SigV4 signer: POST /ListAttachedLinks with {SinkIdentifier, NextToken}, answered {Items: [{Label, LinkArn,
 * ResourceTypes}], NextToken} (OAM API Reference: ListAttachedLinks,
 * https://docs.aws.amazon.com/OAM/latest/APIReference/API_ListAttachedLinks.html). The endpoint follows the SDK's
 * AWS_ENDPOINT_URL_OAM variable, as the clients follow theirs, so tests point it at a loopback server.
 */

export class OamError extends SentinelError {}

/** One workload account's link to a sink: its account comes from the link's ARN. */
export interface AttachedLink {
  readonly account: string;
  readonly label: string;
  readonly linkArn: string;
  readonly resourceTypes: readonly string[];
}

interface ListAttachedLinksOutput {
  readonly Items?: readonly { Label?: string; LinkArn?: string; ResourceTypes?: string[] }[];
  readonly NextToken?: string;
}

/** SHA-256 and HMAC-SHA-256 over node:crypto, in the shape the signer takes. */
class Sha256 {
  private hash: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;

  constructor(private readonly secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = this.fresh();
  }

  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }

  reset(): void {
    this.hash = this.fresh();
  }

  private fresh() {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(this.secret));
  }
}

function bytes(data: string | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}

/** Send one OAM operation, signed, and decode its JSON answer; an error answer is an OamError naming its type. */
async function sendOam<T>(operation: string, body: object, region: string): Promise<T> {
  const endpoint = new URL(process.env.AWS_ENDPOINT_URL_OAM ?? `https://oam.${region}.amazonaws.com`);
  const payload = JSON.stringify(body);
  const signer = new SignatureV4({ credentials: defaultProvider(), region, service: 'oam', sha256: Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: endpoint.protocol,
    hostname: endpoint.hostname,
    ...(endpoint.port && { port: Number(endpoint.port) }),
    path: `/${operation}`,
    query: {},
    headers: { host: endpoint.host, 'content-type': 'application/json' },
    body: payload,
  });
  const response = await fetch(new URL(`/${operation}`, endpoint), {
    method: 'POST',
    headers: signed.headers,
    body: payload,
  });
  const text = await response.text();
  if (!response.ok) {
    const type = response.headers.get('x-amzn-errortype')?.split(':')[0] ?? `HTTP ${response.status}`;
    const message = (JSON.parse(text || '{}') as { message?: string; Message?: string }).message ?? text;
    throw new OamError(`OAM ${operation}: ${type}: ${message}`);
  }
  return JSON.parse(text) as T;
}

/** Every link attached to a sink, page by page. */
export async function attachedLinks(sinkArn: string, region: string): Promise<AttachedLink[]> {
  const links: AttachedLink[] = [];
  let nextToken: string | undefined;
  do {
    const page: ListAttachedLinksOutput = await sendOam<ListAttachedLinksOutput>(
      'ListAttachedLinks',
      { SinkIdentifier: sinkArn, ...(nextToken && { NextToken: nextToken }) },
      region,
    );
    for (const item of page.Items ?? []) {
      links.push({
        account: item.LinkArn?.split(':')[4] ?? '',
        label: item.Label ?? '',
        linkArn: item.LinkArn ?? '',
        resourceTypes: item.ResourceTypes ?? [],
      });
    }
    nextToken = page.NextToken;
  } while (nextToken);
  return links;
}
