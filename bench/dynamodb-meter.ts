import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PARTITION } from '../aws/dynamodb/table-keys.ts';
import { TABLE_SCHEMA } from '../aws/dynamodb/table-schema.ts';

/** Request units as DynamoDB on-demand bills them, per operation. */
export interface OperationUsage {
  calls: number;
  readUnits: number;
  writeUnits: number;
}

export interface DynamoMeter {
  /** Point the SDK here (AWS_ENDPOINT_URL_DYNAMODB) instead of at dynalite. */
  readonly endpoint: string;
  readonly usage: Map<string, OperationUsage>;
  reset(): void;
  close(): Promise<void>;
}

const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem']);
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

/**
 * A loopback proxy in front of dynalite that asks for ConsumedCapacity on every request and adds up what each
 * operation consumed, so the cost model counts the request units a real poll uses instead of guessing them.
 * dynalite sizes items as DynamoDB does but leaves out two things that DynamoDB bills, added here: the write to the
 * `byDay` index of every item that carries its key, and the minimum of one unit (half for an eventually consistent
 * read) per request, even one that matches nothing or fails its condition.
 */
export async function startDynamoMeter(dynalite: string): Promise<DynamoMeter> {
  const target = new URL(dynalite);
  const usage = new Map<string, OperationUsage>();
  const server = createServer((req, res) => {
    void (async () => {
      const body = JSON.parse((await readAll(req)) || '{}') as Record<string, unknown>;
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
      const metered = READS.has(operation) || WRITES.has(operation);
      const forwarded = JSON.stringify(metered ? { ...body, ReturnConsumedCapacity: 'INDEXES' } : body);
      const answer = await forward(target, req, forwarded);
      if (metered) record(usage, operation, body, answer.body);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    usage,
    reset: () => usage.clear(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function record(
  usage: Map<string, OperationUsage>,
  operation: string,
  request: Record<string, unknown>,
  answer: Buffer,
) {
  const consumed = (JSON.parse(answer.toString('utf8') || '{}') as { ConsumedCapacity?: unknown }).ConsumedCapacity;
  const reported = [consumed]
    .flat()
    .reduce((n: number, c) => n + ((c as { CapacityUnits?: number } | undefined)?.CapacityUnits ?? 0), 0);
  const entry = usage.get(operation) ?? { calls: 0, readUnits: 0, writeUnits: 0 };
  usage.set(operation, entry);
  entry.calls++;
  if (READS.has(operation)) {
    entry.readUnits += Math.max(reported, request.ConsistentRead === true ? 1 : 0.5);
    return;
  }
  const tableUnits = Math.max(reported, 1);
  entry.writeUnits += tableUnits + tableUnits * indexWrites(operation, request);
}

/** How many times a write touches the `byDay` index: items carrying its key are projected whole (ALL). */
function indexWrites(operation: string, request: Record<string, unknown>): number {
  const indexKey = TABLE_SCHEMA.dayIndex.partitionKey;
  if (operation === 'PutItem') return (request.Item as Record<string, unknown> | undefined)?.[indexKey] ? 1 : 0;
  const key = (request.Key as Record<string, { S?: string }> | undefined)?.[TABLE_SCHEMA.partitionKey]?.S;
  // The stores' indexed items (see aws/dynamodb/table-keys.ts): updating the index key moves the entry (2 writes).
  const indexed: readonly string[] = [PARTITION.outbox, PARTITION.open, PARTITION.resolved, PARTITION.pollLog];
  if (!key || !indexed.includes(key)) return 0;
  const names = Object.values((request.ExpressionAttributeNames as Record<string, string> | undefined) ?? {});
  return operation === 'UpdateItem' && names.includes(indexKey) ? 2 : 1;
}

async function readAll(stream: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function forward(target: URL, req: IncomingMessage, body: string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, 'content-length': Buffer.byteLength(body) },
        },
        (answer) => {
          void readAll(answer).then(
            (text) => resolve({ status: answer.statusCode ?? 500, headers: answer.headers, body: Buffer.from(text) }),
            reject,
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    },
  );
}
