import type { Silences } from '../../shared/pipeline/ports.ts';
import type { Silence } from '../../shared/pipeline/silence.ts';
import type { DynamoDbTable } from './table.ts';
import { decodeItem, silenceItem } from './table-items.ts';
import { PARTITION, silenceKeyFrom } from './table-keys.ts';

/**
 * One silence per id: an extension writes the silence at its new end before it deletes the old item, so a run that
 * stopped between the two leaves two; the one ended early wins, or else the later end, which is the latest decision.
 */
function oneById(silences: readonly Silence[]): Silence[] {
  const byId = new Map<string, Silence>();
  for (const silence of silences) {
    const other = byId.get(silence.id);
    const wins =
      !other || (silence.expired !== undefined) !== (other.expired !== undefined)
        ? !other || silence.expired !== undefined
        : silence.to > other.to;
    if (wins) byId.set(silence.id, silence);
  }
  return [...byId.values()];
}

/**
 * Silences as the poll and the digest read them (`SILENCE`/`<given end>#<id>` in the incident table): one query of
 * the keys whose end is at or after a time, through the table's queries (table.ts declares the action).
 * DynamoDbSilenceStore adds the writes of `sentinel silence`.
 */
export class DynamoDbSilences implements Silences {
  constructor(protected readonly table: DynamoDbTable) {}

  async endingAfter(at: number): Promise<Silence[]> {
    const items = await this.table.partitionFrom(PARTITION.silence, silenceKeyFrom(at));
    // TTL deletes an item up to days after it expires, and a silence expired early keeps its key: the end stored in
    // the silence is what counts (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/howitworks-ttl.html).
    const silences = items.map((item) => decodeItem(silenceItem, item).silence).filter((silence) => silence.to > at);
    return oneById(silences);
  }
}
