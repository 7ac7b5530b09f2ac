import type { NearMiss } from '../engine/near-miss.ts';

/**
 * The most entries a list of the poll record keeps (near misses, blind tripwires). A poll record is one table item,
 * which DynamoDB refuses past 400 KB; a near miss takes about 300 bytes, so a fleet sitting under a threshold would
 * overflow it at about 1,300 clusters, and the poll would fail after delivering. What is left out is counted.
 */
export const POLL_RECORD_LIST_MAX = 100;

/** The most characters of an error the poll record keeps: the first lines name it; the log has the whole. */
export const POLL_RECORD_ERROR_MAX = 1000;

/** The near misses a poll record keeps, closest to firing first, and how many it leaves out. */
export function keptNearMisses(all: readonly NearMiss[]): { nearMisses: NearMiss[]; nearMissesOmitted?: number } {
  const closest = [...all].sort((a, b) => a.distance - b.distance).slice(0, POLL_RECORD_LIST_MAX);
  return {
    nearMisses: closest,
    ...(all.length > closest.length && { nearMissesOmitted: all.length - closest.length }),
  };
}

/** The blind tripwires a poll record keeps, and how many it leaves out; nothing when there are none. */
export function keptBlindTripwires(all: readonly string[]): {
  blindTripwires?: string[];
  blindTripwiresOmitted?: number;
} {
  if (all.length === 0) return {};
  const kept = all.slice(0, POLL_RECORD_LIST_MAX);
  return { blindTripwires: kept, ...(all.length > kept.length && { blindTripwiresOmitted: all.length - kept.length }) };
}

/** An error as the poll record keeps it. */
export function recordedError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.slice(0, POLL_RECORD_ERROR_MAX);
}
