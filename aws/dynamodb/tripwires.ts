import type { ArmedClusters, RecordedTripwireState, Tripwires } from '../../shared/pipeline/ports.ts';
import type { DynamoDbTable } from './table.ts';
import { decodeItem, tripwireItem } from './table-items.ts';
import { clusterOfTripwireKey, PARTITION } from './table-keys.ts';

/**
 * Tripwire states as the alarms last reported them (`TRIPWIRE`/`<cluster>` items in the incident table), read by
 * every poll; DynamoDbTripwireRecorder writes them. The node-churn function arms a cluster too, for a while, after a
 * termination that could be a repair (`TRIPWIRE`/`<cluster>#node-churn`). Both kinds come from one consistent query of
 * the partition per poll, through the table's queries, which follow it page by page: a page holds at most 1 MB, and
 * the tripwires of 10,000 clusters with 100-character names take about 1.5 MB. The same query says what is recorded
 * of each alarm, for the slow cycle's refresh to write only what changed or is near its expiry.
 */
export class DynamoDbTripwires implements Tripwires {
  constructor(private readonly table: DynamoDbTable) {}

  async armed(at: number): Promise<ArmedClusters> {
    const items = (await this.table.partition(PARTITION.tripwire)).map((item) => decodeItem(tripwireItem, item));
    // TTL deletes late (up to days): an expired tripwire is ignored here rather than trusted until it is gone.
    const live = items.filter(
      (tripwire) => tripwire.state === 'ALARM' && (tripwire.armedUntil ?? tripwire.expiresAt) * 1000 > at,
    );
    const clustersOf = (byNodeChurn: boolean) =>
      new Set(live.filter((t) => t.sk.includes('#') === byNodeChurn).map((t) => clusterOfTripwireKey(t.sk)));
    // The alarms' states, expired ones too, as the slow cycle's refresh compares them with CloudWatch's.
    const recorded = new Map<string, RecordedTripwireState>();
    for (const { sk, state, changedAt, expiresAt } of items) {
      if (sk.includes('#')) continue;
      recorded.set(clusterOfTripwireKey(sk), {
        state,
        ...(changedAt !== undefined && { changedAt }),
        expiresAt: expiresAt * 1000,
      });
    }
    return { byAlarm: clustersOf(false), byNodeChurn: clustersOf(true), recorded };
  }
}
