/**
 * The request units a DynamoDB request takes, and of which partitions, as DynamoDB bills and limits them: a write
 * takes one unit per KB of the item (rounded up; an update the larger of the item before and after), a read one per
 * 4 KB (half of that when eventually consistent), a query the summed size of the items it read
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html). dynalite sizes
 * items and reports what a request consumed (`ReturnConsumedCapacity`) as DynamoDB does; it leaves out two things
 * DynamoDB bills, added here: the write to the `byDay` index of every item that carries its key, which takes the
 * index's own partition, and the minimum of one unit (half for an eventually consistent read) per request, even one
 * that matches nothing or fails its condition.
 *
 * The one place these units are computed: the loopback throughput proxy (dynamodb-throughput-proxy.ts) meters and
 * limits with them, and the benchmark's meter is that proxy.
 */
import { PARTITION } from '../aws/dynamodb/table-keys.ts';
import { TABLE_SCHEMA } from '../aws/dynamodb/table-schema.ts';

export const READ_OPERATIONS: ReadonlySet<string> = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem']);
export const WRITE_OPERATIONS: ReadonlySet<string> = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem']);

/** The prefix of an index partition's name: `byDay:<value>`, beside the table's own partition key values. */
export const DAY_INDEX_PARTITION = `${TABLE_SCHEMA.dayIndex.name}:`;

/** Units one partition takes of a request: a table partition key value, or `byDay:<value>` of the index. */
export interface PartitionCharge {
  readonly partition: string;
  readonly units: number;
}

export interface RequestUnits {
  readonly kind: 'read' | 'write';
  /** The units billed for the request, the index's writes included. */
  readonly units: number;
  readonly charges: readonly PartitionCharge[];
}

/** Whether DynamoDB bills the operation in request units (a table's data plane: reads and writes). */
export function consumesUnits(operation: string): boolean {
  return READ_OPERATIONS.has(operation) || WRITE_OPERATIONS.has(operation);
}

/** Whether a charge is to a partition of the `byDay` index rather than of the table. */
export function isIndexPartition(partition: string): boolean {
  return partition.startsWith(DAY_INDEX_PARTITION);
}

/**
 * The units `operation` took, from the request and what the answer reported it consumed (`ConsumedCapacity`,
 * asked for with `ReturnConsumedCapacity`); without an answer, what it will take at least, of the same partitions: a
 * put its item's size (which the request holds), anything else its minimum.
 */
export function requestUnits(operation: string, request: Record<string, unknown>, consumed?: unknown): RequestUnits {
  const reported = [consumed]
    .flat()
    .reduce((n: number, c) => n + ((c as { CapacityUnits?: number } | undefined)?.CapacityUnits ?? 0), 0);
  const keys = partitionKeys(request);
  const spread = (units: number, of: readonly string[]) =>
    of.map((partition) => ({ partition, units: units / of.length }));
  if (READ_OPERATIONS.has(operation)) {
    const units = Math.max(reported, request.ConsistentRead === true ? 1 : 0.5);
    return { kind: 'read', units, charges: spread(units, keys) };
  }
  const putSize = operation === 'PutItem' && consumed === undefined ? itemBytes(request.Item) : 0;
  const tableUnits = Math.max(reported, 1, Math.ceil(putSize / 1024));
  const indexUnits = tableUnits * indexWrites(operation, request);
  // A move writes the new entry and removes the old one, whose value the request does not name.
  const moved = indexUnits > tableUnits;
  const day = `${DAY_INDEX_PARTITION}${indexedDay(request)}`;
  const charges = [
    ...spread(tableUnits, keys),
    ...(indexUnits > 0 ? [{ partition: day, units: moved ? tableUnits : indexUnits }] : []),
    ...(moved ? [{ partition: `${DAY_INDEX_PARTITION}?`, units: tableUnits }] : []),
  ];
  return { kind: 'write', units: tableUnits + indexUnits, charges };
}

type Attributes = Record<string, { S?: string } | undefined>;

/** The partition key values a request reads or writes: of its item, its key, its query, or each of its batch's. */
function partitionKeys(request: Record<string, unknown>): string[] {
  const pkOf = (attributes: unknown) => (attributes as Attributes | undefined)?.[TABLE_SCHEMA.partitionKey]?.S;
  const values = request.ExpressionAttributeValues as Attributes | undefined;
  if (request.IndexName) return [`${DAY_INDEX_PARTITION}${values?.[':day']?.S ?? '?'}`];
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

/**
 * An item's size as DynamoDB counts it: each attribute's name and value, a string or binary by its bytes, a number
 * by about one byte per two digits, a list or map by its elements and a few bytes more
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html).
 */
function itemBytes(item: unknown): number {
  if (!item || typeof item !== 'object') return 0;
  return Object.entries(item).reduce((n, [name, value]) => n + Buffer.byteLength(name) + valueBytes(value), 0);
}

function valueBytes(value: unknown): number {
  const typed = (value ?? {}) as Record<string, unknown>;
  if (typeof typed.S === 'string') return Buffer.byteLength(typed.S);
  if (typeof typed.N === 'string') return Math.ceil(typed.N.replace(/^-|\./g, '').length / 2) + 1;
  if (typeof typed.B === 'string') return Buffer.from(typed.B, 'base64').length;
  if (Array.isArray(typed.L)) return 3 + typed.L.reduce((n: number, element) => n + 1 + valueBytes(element), 0);
  if (typed.M && typeof typed.M === 'object') return 3 + itemBytes(typed.M) + Object.keys(typed.M).length;
  const set = typed.SS ?? typed.NS ?? typed.BS;
  if (Array.isArray(set)) return set.reduce((n: number, element) => n + Buffer.byteLength(String(element)), 0);
  return 1;
}
