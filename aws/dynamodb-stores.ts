import type { PipelineStores } from '../shared/pipeline/ports.ts';
import { DynamoDbActivityLog } from './dynamodb-activity-log.ts';
import { DynamoDbHandResolutions } from './dynamodb-hand-resolutions.ts';
import { DynamoDbIncidentRepository } from './dynamodb-incident-repository.ts';
import { DynamoDbOutbox } from './dynamodb-outbox.ts';
import { DynamoDbSilences } from './dynamodb-silences.ts';
import { DynamoDbStepLedger } from './dynamodb-step-ledger.ts';
import { DynamoDbTable, type DynamoDbTableOptions } from './dynamodb-table.ts';

/**
 * The pipeline's stores over one DynamoDB table (its layout is in table-keys.ts). The ledger applies a step
 * through this outbox and these incidents, and the activity log reads a period from them. The poll only reads
 * silences: `sentinel silence` writes them (dynamodb-silence-store.ts).
 */
export function dynamoDbStores(options: DynamoDbTableOptions): PipelineStores {
  const table = new DynamoDbTable(options);
  const incidents = new DynamoDbIncidentRepository(table);
  const outbox = new DynamoDbOutbox(table);
  const silences = new DynamoDbSilences(table);
  return {
    ledger: new DynamoDbStepLedger(table, { incidents, outbox }),
    incidents,
    outbox,
    activityLog: new DynamoDbActivityLog(table, { incidents, outbox, silences }),
    silences,
    handResolutions: new DynamoDbHandResolutions(table),
  };
}
