import { MemoryActivityLog } from './memory-activity-log.ts';
import { MemoryHandResolutions } from './memory-hand-resolutions.ts';
import { MemoryIncidentRepository } from './memory-incident-repository.ts';
import { MemoryOutbox } from './memory-outbox.ts';
import { MemorySilences } from './memory-silences.ts';
import { MemoryStepLedger } from './memory-step-ledger.ts';
import type { PipelineStores } from './ports.ts';

export interface MemoryStores extends PipelineStores {
  readonly ledger: MemoryStepLedger;
  readonly incidents: MemoryIncidentRepository;
  readonly outbox: MemoryOutbox;
  readonly activityLog: MemoryActivityLog;
  readonly silences: MemorySilences;
  readonly handResolutions: MemoryHandResolutions;
}

/** The pipeline's stores in memory, over one state: for replay, a dry-run poll and tests. */
export function memoryStores(now: () => number): MemoryStores {
  const incidents = new MemoryIncidentRepository();
  const outbox = new MemoryOutbox(now);
  const silences = new MemorySilences();
  return {
    ledger: new MemoryStepLedger(now, { incidents, outbox }),
    incidents,
    outbox,
    activityLog: new MemoryActivityLog({ incidents, outbox, silences }),
    silences,
    handResolutions: new MemoryHandResolutions(),
  };
}
