import { readActivity, within } from '../../shared/pipeline/activity.ts';
import type {
  Activity,
  ActivityLog,
  IncidentRepository,
  Outbox,
  PollRecord,
  Silences,
} from '../../shared/pipeline/ports.ts';
import { DynamoDbIncidentReader } from './incident-reader.ts';
import { DynamoDbOutboxReader } from './outbox-reader.ts';
import { DynamoDbSilences } from './silences.ts';
import { DynamoDbTable, type DynamoDbTableOptions } from './table.ts';
import { decodeItem, pollLogItem } from './table-items.ts';
import { PARTITION, pollLogKey } from './table-keys.ts';

/** Where a period's activity comes from besides the poll log: the incidents', the outbox's and the silences' reads. */
export interface ActivitySources {
  readonly incidents: Pick<IncidentRepository, 'overlapping'>;
  readonly outbox: Pick<Outbox, 'raisedBetween'>;
  readonly silences: Silences;
}

/** The reading half of the poll log: a period's activity, its poll records read by the range of their keys. */
export class DynamoDbActivityReader implements Pick<ActivityLog, 'activityBetween'> {
  constructor(
    protected readonly table: DynamoDbTable,
    private readonly sources: ActivitySources,
  ) {}

  activityBetween(from: number, to: number): Promise<Activity> {
    return readActivity(this.sources, this.pollsBetween(from, to), from, to);
  }

  private async pollsBetween(from: number, to: number): Promise<PollRecord[]> {
    // Keys are `<at>#<owner>`: every key of an instant from `from` on sorts after `<from>#`, and every key of `to`'s
    // instant after `<to>#`, so this range is the period, `to` left out.
    const items = await this.table.partitionBetween(PARTITION.pollLog, pollLogKey(from, '').sk, pollLogKey(to, '').sk);
    return items.map((item) => decodeItem(pollLogItem, item).record).filter((p) => within(p.at, from, to));
  }
}

/**
 * The weekly digest's view of the table: reads only (queries), so that a function that only reports on the past
 * (the digest) is given nothing that writes.
 */
export function dynamoDbActivityReader(options: DynamoDbTableOptions): Pick<ActivityLog, 'activityBetween'> {
  const table = new DynamoDbTable(options);
  return new DynamoDbActivityReader(table, {
    incidents: new DynamoDbIncidentReader(table),
    outbox: new DynamoDbOutboxReader(table),
    silences: new DynamoDbSilences(table),
  });
}
