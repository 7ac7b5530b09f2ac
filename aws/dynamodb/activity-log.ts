import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ActivityLog, PollRecord } from '../../shared/pipeline/ports.ts';
import { DynamoDbActivityReader } from './activity-reader.ts';
import { pollLogKey } from './table-keys.ts';

/** What this module sends: one poll record per poll. */
export const IAM_ACTIONS = ['dynamodb:PutItem'] as const;

/**
 * The poll log in DynamoDB (`POLLLOG`/`<at>#<owner>`), read by a range of its sort keys, never scanned; a period's
 * incidents and notifications come from their own ports. The reads are the reader's; this adds the writes.
 */
export class DynamoDbActivityLog extends DynamoDbActivityReader implements ActivityLog {
  async recordPoll(record: PollRecord): Promise<void> {
    await this.table.db.send(
      new PutCommand({
        TableName: this.table.name,
        Item: {
          ...pollLogKey(record.at, record.owner),
          record,
          expiresAt: this.table.expiresAt(record.at),
        },
      }),
    );
  }
}
