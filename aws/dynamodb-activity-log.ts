import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { readActivity, within } from '../shared/pipeline/activity.ts';
import type { Activity, ActivityLog, IncidentRepository, Outbox, PollRecord } from '../shared/pipeline/ports.ts';
import type { DynamoDbTable } from './dynamodb-table.ts';
import { decodeItem, pollLogItem } from './table-items.ts';
import { DAY_INDEX, dayIndexEntry, dayOf, daysFrom, pollLogKey } from './table-keys.ts';

/**
 * The poll log in DynamoDB (`POLLLOG`/`<at>#<owner>`, indexed by day), read a day at a time, never scanned; a
 * period's incidents and notifications come from their own ports.
 */
export class DynamoDbActivityLog implements ActivityLog {
  constructor(
    private readonly table: DynamoDbTable,
    private readonly sources: { readonly incidents: IncidentRepository; readonly outbox: Outbox },
  ) {}

  async recordPoll(record: PollRecord): Promise<void> {
    const at = new Date(record.at).toISOString();
    await this.table.db.send(
      new PutCommand({
        TableName: this.table.name,
        Item: {
          ...pollLogKey(record.at, record.owner),
          ...dayIndexEntry(DAY_INDEX.polledOn(dayOf(record.at)), at),
          record,
          expiresAt: this.table.expiresAt(record.at),
        },
      }),
    );
  }

  activityBetween(from: number, to: number): Promise<Activity> {
    return readActivity(this.sources, this.pollsBetween(from, to), from, to);
  }

  private async pollsBetween(from: number, to: number): Promise<PollRecord[]> {
    const items = await this.table.days(daysFrom(from, to).map(DAY_INDEX.polledOn));
    return items.map((item) => decodeItem(pollLogItem, item).record).filter((p) => within(p.at, from, to));
  }
}
