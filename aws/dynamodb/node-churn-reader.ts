import type { CountedTermination, NodeChurnReader } from '../../shared/churn/node-churn.ts';
import type { DynamoDbTable } from './table.ts';
import { decodeItem, terminationItem } from './table-items.ts';
import { nodeChurnPartition } from './table-keys.ts';

/** The node terminations DynamoDbNodeChurnLedger counted, read by the poller one cluster at a time: one query each. */
export class DynamoDbNodeChurnReader implements NodeChurnReader {
  constructor(private readonly table: DynamoDbTable) {}

  async terminations(cluster: string, from: number, to: number): Promise<CountedTermination[]> {
    // Eventually consistent, which halves the read units of a query made for every cluster in every poll: a poll reads
    // minutes that ended at least its ingestion lag ago, and a termination whose event came within the last second is
    // counted by the next poll, whose window still holds its minute.
    const items = await this.table.partitionBetween(
      nodeChurnPartition(cluster),
      new Date(from).toISOString(),
      // Every key of a minute before `to` sorts below the minute's time with `~`, the highest printable ASCII.
      `${new Date(to - 1).toISOString()}~`,
      'eventual',
    );
    return items.map((item) => decodeItem(terminationItem, item));
  }
}
