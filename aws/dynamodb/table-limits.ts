import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * The sizes the table's items are kept within. DynamoDB refuses an item over 400 KB (1 KB = 1024 bytes), attribute
 * names and values together, strings counted in UTF-8 bytes and binary values in raw bytes
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-items,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html). Every kind of
 * item states its bound beside its key in table-keys.ts; what can grow past it is stored in parts of `PART_BYTES`.
 */
export const ITEM_BYTES = 400 * 1024;

/** The payload of one part: what is left under `ITEM_BYTES` after its key and TTL, with room to spare. */
export const PART_BYTES = 300_000;

/** The most a value stored whole inside an item may take as JSON; a larger notification is stored in parts. */
export const INLINE_JSON_BYTES = 200_000;

/** The UTF-8 size of a text, which is what DynamoDB counts for a string. */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Binary data cut into parts of at most `maxBytes` each. */
export function byteParts(data: Uint8Array, maxBytes: number = PART_BYTES): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let start = 0; start < data.length; start += maxBytes) parts.push(data.subarray(start, start + maxBytes));
  return parts.length > 0 ? parts : [new Uint8Array()];
}

/** A text gzipped and cut into parts of at most `PART_BYTES`: what goes into the parts of a payload too large for one item. */
export const gzippedParts = (json: string): Uint8Array[] => byteParts(gzipSync(json));

/** The JSON that gzipped parts' payloads, in order, add up to. */
export const gunzippedJson = (payloads: readonly Uint8Array[]): string =>
  gunzipSync(Buffer.concat(payloads)).toString('utf8');
