import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';

/** What the server behind a loopback proxy answered, read whole. */
export interface ProxiedAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/** The body of an HTTP message, read whole. */
export async function readAll(message: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of message) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Sends `req` on to `target` (its method, path and headers) with `body`, which may differ from the one it came with. */
export function forward(target: URL, req: IncomingMessage, body: string | Buffer): Promise<ProxiedAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, 'content-length': Buffer.byteLength(body) },
      },
      (answer) => {
        readAll(answer).then(
          (read) => resolve({ status: answer.statusCode ?? 500, headers: answer.headers, body: read }),
          reject,
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Hands an answer back to the client that asked. */
export function reply(res: ServerResponse, answer: ProxiedAnswer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}
