/**
 * A loopback proxy in front of DynamoDB (dynalite) that meters the request units every request takes, per operation
 * and per partition (dynamodb-request-units.ts), and, given limits, holds DynamoDB's throughput line, which dynalite
 * does not: each partition key value of the table and of the `byDay` index serves at most so many write and read
 * units a second, and the table (and the index) so many in all. A request over a line is refused as DynamoDB refuses
 * it, with nothing applied, and the SDK's retries meet it again until the bucket has refilled.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TABLE_SCHEMA } from '../aws/dynamodb/table-schema.ts';
import { consumesUnits, isIndexPartition, type RequestUnits, requestUnits } from './dynamodb-request-units.ts';
import { forward, type ProxiedAnswer, readAll, reply } from './http-proxying.ts';

/**
 * DynamoDB's throughput, per second, on demand as provisioned:
 * - each partition serves at most 3,000 read units and 1,000 write units, and items that share a partition key
 *   value start out in one partition; a global secondary index's partitions are its own
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html,
 *   https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TroubleshootingThrottlingOnDemand.html);
 * - a new on-demand table serves at first up to 4,000 write units or 12,000 read units in all, and up to double its
 *   previous peak later (https://repost.aws/knowledge-center/on-demand-table-throttling-dynamodb).
 * DynamoDB also splits a partition that stays hot, and raises a table's line after a peak: these limits leave that
 * out, so they hold the line a deployment meets in its first fleet outage.
 */
export const DYNAMODB_THROUGHPUT = {
  partitionWriteUnits: 1_000,
  partitionReadUnits: 3_000,
  tableWriteUnits: 4_000,
  tableReadUnits: 12_000,
} as const;

/** Units a second: per partition key value, and per table (and per index) in all. */
export interface ThroughputLimits {
  readonly partitionWriteUnits: number;
  readonly partitionReadUnits: number;
  readonly tableWriteUnits: number;
  readonly tableReadUnits: number;
}

/**
 * DynamoDB's limits times `factor`: a fleet of `factor` × 10,000 clusters meets the line at `factor` × the units
 * that 10,000 clusters meet it at, as each hot partition's units grow with the fleet.
 */
export function scaledThroughput(factor: number): ThroughputLimits {
  return {
    partitionWriteUnits: DYNAMODB_THROUGHPUT.partitionWriteUnits * factor,
    partitionReadUnits: DYNAMODB_THROUGHPUT.partitionReadUnits * factor,
    tableWriteUnits: DYNAMODB_THROUGHPUT.tableWriteUnits * factor,
    tableReadUnits: DYNAMODB_THROUGHPUT.tableReadUnits * factor,
  };
}

/**
 * DynamoDB's answer to a request over a partition's line, on demand as provisioned: a 400 with
 * `ProvisionedThroughputExceededException` and its message
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html#Programming.Errors.MessagesAndCodes),
 * which names why and what in `ThrottlingReasons`: `TableWriteKeyRangeThroughputExceeded` and the like, with the
 * table's or the index's ARN (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ThrottlingReason.html).
 * A new table's line in all is its first partitions' (4 × 1,000 write units), so it is answered the same way.
 */
export const THROUGHPUT_EXCEEDED = {
  status: 400,
  type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
  message:
    'You exceeded your maximum allowed provisioned throughput for a table or for one or more global secondary ' +
    'indexes. To view performance metrics for provisioned throughput vs. consumed throughput, open the Amazon ' +
    'CloudWatch console.',
} as const;

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

export interface DynamoDbThroughputProxy {
  /** Point the SDK here (AWS_ENDPOINT_URL_DYNAMODB) instead of at dynalite. */
  readonly endpoint: string;
  /** What the admitted requests consumed, per operation. */
  readonly usage: Map<string, OperationUsage>;
  /**
   * What the admitted requests consumed, by partition key value: the table's (`pk`) and the index's (`day`, as
   * `byDay:<value>`). Never reset: callers take differences.
   */
  readonly partitions: Map<string, PartitionUsage>;
  /**
   * The requests refused, by the partition whose line they met (`table` or `index` for the line in all). Never
   * reset: callers take differences.
   */
  readonly throttled: Map<string, number>;
  /** The same refusals by operation and partition (`PutItem OPEN`): which requests met the line. */
  readonly throttledRequests: Map<string, number>;
  close(): Promise<void>;
}

/** Units a second, refilled continuously, holding at most one second's: a request is admitted while units are left. */
class UnitBucket {
  #units: number;
  #at = performance.now();

  constructor(readonly perSecond: number) {
    this.#units = perSecond;
  }

  /**
   * Whether a request of `units` may start: a request larger than a whole second's line (a step's part of 293 write
   * units against a scaled line of 100) starts when the bucket is full, as DynamoDB serves any one item, 400 KB at
   * most, within its partition's second.
   */
  has(units: number): boolean {
    return this.#refilled() >= Math.min(units, this.perSecond);
  }

  /** May run into debt: a query's or an update's units are known only once it has run, in DynamoDB as here. */
  take(units: number): void {
    this.#units = this.#refilled() - units;
  }

  #refilled(): number {
    const now = performance.now();
    this.#units = Math.min(this.perSecond, this.#units + ((now - this.#at) / 1000) * this.perSecond);
    this.#at = now;
    return this.#units;
  }
}

/** Every bucket a request draws from, each with the units it takes of it. */
type Draw = readonly (readonly [bucket: UnitBucket, units: number, line: string])[];

class ThroughputLine {
  readonly #buckets = new Map<string, UnitBucket>();

  constructor(readonly limits: ThroughputLimits) {}

  /** The buckets `units` draw from: each partition's, and the table's or the index's in all. */
  draw({ kind, charges }: RequestUnits): Draw {
    const [perPartition, inAll] =
      kind === 'write'
        ? [this.limits.partitionWriteUnits, this.limits.tableWriteUnits]
        : [this.limits.partitionReadUnits, this.limits.tableReadUnits];
    const whole = new Map<string, number>();
    const draws = charges.map(({ partition, units }) => {
      const resource = isIndexPartition(partition) ? 'index' : 'table';
      whole.set(resource, (whole.get(resource) ?? 0) + units);
      return [this.#bucket(`${kind} ${partition}`, perPartition), units, partition] as const;
    });
    return [
      ...draws,
      ...[...whole].map(([resource, units]) => [this.#bucket(`${kind} ${resource}`, inAll), units, resource] as const),
    ];
  }

  #bucket(name: string, perSecond: number): UnitBucket {
    let bucket = this.#buckets.get(name);
    if (!bucket) {
      bucket = new UnitBucket(perSecond);
      this.#buckets.set(name, bucket);
    }
    return bucket;
  }
}

/**
 * Start the proxy in front of `target`, holding `limits` (DynamoDB's own, DYNAMODB_THROUGHPUT, unless told), or
 * none (`unlimited`: the benchmark's meter, which only counts). A request is admitted when each bucket it draws from
 * still holds what it will take at least (a put its item's size, any other write a unit, a read half or one), takes
 * that at once, and the rest of what it consumed, or back what it did not, when DynamoDB has answered.
 */
export async function startDynamoDbThroughputProxy(options: {
  readonly target: string;
  readonly limits?: ThroughputLimits | 'unlimited';
}): Promise<DynamoDbThroughputProxy> {
  const target = new URL(options.target);
  const limits = options.limits ?? DYNAMODB_THROUGHPUT;
  const line = limits === 'unlimited' ? undefined : new ThroughputLine(limits);
  const usage = new Map<string, OperationUsage>();
  const partitions = new Map<string, PartitionUsage>();
  const throttled = new Map<string, number>();
  const throttledRequests = new Map<string, number>();
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readAll(req).then(
        (read) => read.toString('utf8'),
        () => undefined,
      );
      if (raw === undefined) {
        req.socket.destroy();
        return;
      }
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
      if (!consumesUnits(operation)) {
        reply(res, await forward(target, req, raw));
        return;
      }
      const least = requestUnits(operation, body);
      const draw = line?.draw(least) ?? [];
      const over = draw.find(([bucket, units]) => !bucket.has(units));
      if (over) {
        throttled.set(over[2], (throttled.get(over[2]) ?? 0) + 1);
        const request = `${operation} ${over[2]}`;
        throttledRequests.set(request, (throttledRequests.get(request) ?? 0) + 1);
        reply(res, throughputExceeded(body, least, over[2]));
        return;
      }
      for (const [bucket, units] of draw) bucket.take(units);
      const answer = await forward(target, req, JSON.stringify({ ...body, ReturnConsumedCapacity: 'INDEXES' }));
      const consumed = (JSON.parse(answer.body.toString('utf8') || '{}') as { ConsumedCapacity?: unknown })
        .ConsumedCapacity;
      const used = requestUnits(operation, body, consumed);
      for (const [i, [bucket, units]] of (line?.draw(used) ?? []).entries()) bucket.take(units - (draw[i]?.[1] ?? 0));
      record(usage, partitions, operation, used);
      reply(res, answer);
    })().catch(() => res.socket?.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    usage,
    partitions,
    throttled,
    throttledRequests,
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
  { kind, units, charges }: RequestUnits,
) {
  const entry = usage.get(operation) ?? { calls: 0, readUnits: 0, writeUnits: 0 };
  usage.set(operation, entry);
  entry.calls++;
  const field = kind === 'read' ? 'readUnits' : 'writeUnits';
  entry[field] += units;
  for (const { partition, units: charged } of charges) {
    const used = partitions.get(partition) ?? { readUnits: 0, writeUnits: 0 };
    partitions.set(partition, used);
    used[field] += charged;
  }
}

/** The refusal of a request over `line` (a partition key value, `table` or `index`), as DynamoDB answers it. */
function throughputExceeded(request: Record<string, unknown>, { kind }: RequestUnits, line: string): ProxiedAnswer {
  const table = typeof request.TableName === 'string' ? request.TableName : 'table';
  const onIndex = line === 'index' || isIndexPartition(line);
  const resource = `arn:aws:dynamodb:us-east-1:000000000000:table/${table}${onIndex ? `/index/${TABLE_SCHEMA.dayIndex.name}` : ''}`;
  const reason = `${onIndex ? 'Index' : 'Table'}${kind === 'write' ? 'Write' : 'Read'}KeyRangeThroughputExceeded`;
  const body = JSON.stringify({
    __type: THROUGHPUT_EXCEEDED.type,
    message: THROUGHPUT_EXCEEDED.message,
    ThrottlingReasons: [{ reason, resource }],
  });
  return {
    status: THROUGHPUT_EXCEEDED.status,
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'content-length': String(Buffer.byteLength(body)),
      'x-amzn-requestid': randomUUID(),
    },
    body: Buffer.from(body),
  };
}
