import {
  type OperationUsage,
  type PartitionUsage,
  startDynamoDbThroughputProxy,
} from '../support/dynamodb-throughput-proxy.ts';

export type { OperationUsage, PartitionUsage };

export interface DynamoMeter {
  /** Point the SDK here (AWS_ENDPOINT_URL_DYNAMODB) instead of at dynalite. */
  readonly endpoint: string;
  readonly usage: Map<string, OperationUsage>;
  /**
   * By partition key value, the table's (`pk`) and the index's (`day`, as `byDay:<value>`): DynamoDB serves each
   * partition at most 3,000 read and 1,000 write units a second (DYNAMODB_THROUGHPUT). Never reset: callers take
   * differences.
   */
  readonly partitions: Map<string, PartitionUsage>;
  reset(): void;
  close(): Promise<void>;
}

/**
 * The loopback throughput proxy without limits in front of dynalite (support/dynamodb-throughput-proxy.ts): it adds up
 * the request units each operation consumed (support/dynamodb-request-units.ts), so the cost model counts the units
 * a real poll uses instead of guessing them.
 */
export async function startDynamoMeter(dynalite: string): Promise<DynamoMeter> {
  const proxy = await startDynamoDbThroughputProxy({ target: dynalite, limits: 'unlimited' });
  return {
    endpoint: proxy.endpoint,
    usage: proxy.usage,
    partitions: proxy.partitions,
    reset: () => proxy.usage.clear(),
    close: () => proxy.close(),
  };
}
