import type { HandResolution } from '../../shared/engine/hand-resolution.ts';
import type { HandResolutions } from '../../shared/pipeline/ports.ts';
import type { DynamoDbTable } from './table.ts';
import { decodeItem, handResolutionItem } from './table-items.ts';
import { PARTITION } from './table-keys.ts';

/**
 * Hand resolutions as every poll reads them (`RESOLVED`/`<fleet incident id>` in the incident table): one consistent
 * query of their partition, through the table's queries. DynamoDbHandResolutionStore adds the write of
 * `sentinel incidents resolve`.
 */
export class DynamoDbHandResolutions implements HandResolutions {
  constructor(protected readonly table: DynamoDbTable) {}

  async all(): Promise<HandResolution[]> {
    const items = await this.table.partition(PARTITION.handResolution);
    return items.map((item) => decodeItem(handResolutionItem, item).resolution);
  }
}
