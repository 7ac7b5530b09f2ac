import type { PipelineStores } from '../../shared/pipeline/ports.ts';
import { DynamoDbActivityLog } from './activity-log.ts';
import { DynamoDbHandResolutions } from './hand-resolutions.ts';
import { DynamoDbIncidentRepository } from './incident-repository.ts';
import { DynamoDbOutbox } from './outbox.ts';
import { DynamoDbSilences } from './silences.ts';
import { DynamoDbStepLedger } from './step-ledger.ts';
import { DynamoDbTable, type DynamoDbTableOptions } from './table.ts';

/**
 * The pipeline's stores over one DynamoDB table (its layout is in table-keys.ts). The ledger applies a step
 * through this outbox and these incidents, and the activity log reads a period from them. The poll only reads
 * silences: `sentinel silence` writes them (silence-store.ts).
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
