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

/** Request units a partition key (a table item collection, or a `byDay` index value) took, in total. */
export interface PartitionUsage {
  readUnits: number;
  writeUnits: number;
}

export interface DynamoMeter {
  /** Point the SDK here (AWS_ENDPOINT_URL_DYNAMODB) instead of at dynalite. */
  readonly endpoint: string;
  readonly usage: Map<string, OperationUsage>;
  /**
   * By partition key value, the table's (`pk`) and the index's (`day`, as `byDay:<value>`): DynamoDB serves each
   * partition at most 3,000 read and 1,000 write units a second, whatever the table's mode
   * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html), and items that share
   * a partition key start out in one partition. Never reset: callers take differences.
   */
  readonly partitions: Map<string, PartitionUsage>;
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
  const partitions = new Map<string, PartitionUsage>();
  const server = createServer((req, res) => {
    void (async () => {
      const body = JSON.parse((await readAll(req)) || '{}') as Record<string, unknown>;
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
      const metered = READS.has(operation) || WRITES.has(operation);
      const forwarded = JSON.stringify(metered ? { ...body, ReturnConsumedCapacity: 'INDEXES' } : body);
      const answer = await forward(target, req, forwarded);
      if (metered) record(usage, partitions, operation, body, answer.body);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    usage,
    partitions,
    reset: () => usage.clear(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function record(
  usage: Map<string, OperationUsage>,
  partitions: Map<string, PartitionUsage>,
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
  const keys = partitionKeys(request);
  const charge = (kind: keyof PartitionUsage, units: number, of: readonly string[]) => {
    for (const pk of of) {
      const partition = partitions.get(pk) ?? { readUnits: 0, writeUnits: 0 };
      partitions.set(pk, partition);
      partition[kind] += units / of.length;
    }
  };
  if (READS.has(operation)) {
    const units = Math.max(reported, request.ConsistentRead === true ? 1 : 0.5);
    entry.readUnits += units;
    charge('readUnits', units, keys);
    return;
  }
  const tableUnits = Math.max(reported, 1);
  const indexUnits = tableUnits * indexWrites(operation, request);
  entry.writeUnits += tableUnits + indexUnits;
  charge('writeUnits', tableUnits, keys);
  // A move writes the new entry and removes the old one, whose value the request does not name.
  const moved = indexUnits > tableUnits;
  if (indexUnits > 0) charge('writeUnits', moved ? tableUnits : indexUnits, [`byDay:${indexedDay(request)}`]);
  if (moved) charge('writeUnits', tableUnits, ['byDay:?']);
}

type Attributes = Record<string, { S?: string } | undefined>;

/** The partition key values a request reads or writes: of its item, its key, its query, or each of its batch's. */
function partitionKeys(request: Record<string, unknown>): string[] {
  const pkOf = (attributes: unknown) => (attributes as Attributes | undefined)?.[TABLE_SCHEMA.partitionKey]?.S;
  const values = request.ExpressionAttributeValues as Attributes | undefined;
  if (request.IndexName) return [`byDay:${values?.[':day']?.S ?? '?'}`];
  const batch = Object.values((request.RequestItems as Record<string, unknown[]> | undefined) ?? {}).flat();
  const found = [
    pkOf(request.Item),
    pkOf(request.Key),
    values?.[':pk']?.S,
    ...batch.map((entry) => {
      const e = entry as { PutRequest?: { Item?: unknown }; DeleteRequest?: { Key?: unknown }; Keys?: unknown[] };
      return pkOf(e.PutRequest?.Item) ?? pkOf(e.DeleteRequest?.Key);
    }),
  ];
  const keys = found.filter((pk): pk is string => pk !== undefined);
  return keys.length > 0 ? keys : ['?'];
}

/**
 * The `byDay` value a put or an update gives its item: the item's own, or the `:day` an update sets (outbox.ts); `?`
 * for a delete, or an update that leaves the value as it was, which do not name it.
 */
function indexedDay(request: Record<string, unknown>): string {
  const indexKey = TABLE_SCHEMA.dayIndex.partitionKey;
  const fromItem = (request.Item as Attributes | undefined)?.[indexKey]?.S;
  return fromItem ?? (request.ExpressionAttributeValues as Attributes | undefined)?.[':day']?.S ?? '?';
}
/** How many times a write touches the `byDay` index: items carrying its key are projected whole (ALL). */
function indexWrites(operation: string, request: Record<string, unknown>): number {
  const indexKey = TABLE_SCHEMA.dayIndex.partitionKey;
  if (operation === 'PutItem') return (request.Item as Record<string, unknown> | undefined)?.[indexKey] ? 1 : 0;
  const key = (request.Key as Record<string, { S?: string }> | undefined)?.[TABLE_SCHEMA.partitionKey]?.S;
  // The items the stores update or delete that carry the index key (see aws/dynamodb/table-keys.ts): updating the
  // key moves the entry (2 writes). Open incidents and poll records carry none.
  const indexed: readonly string[] = [PARTITION.outbox, PARTITION.resolved];
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
