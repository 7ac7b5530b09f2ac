import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type * as z from 'zod';
import type { DynamoDbTable } from './table.ts';
import { decodeItem, gzippedPartItem } from './table-items.ts';
import type { ItemKey } from './table-keys.ts';
import { gunzippedJson, gzippedParts } from './table-limits.ts';

/** What this module sends: the parts' puts and their consistent reads. */
export const IAM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem'] as const;

/**
 * A payload too large for one item, gzipped and cut into parts below DynamoDB's 400 KB (`PART_BYTES`), one item a
 * part, written one after another. Gzipped because what goes in parts is a fleet's worth of repetitive evidence text,
 * and every kilobyte written is a write unit: a partition takes at most 1,000 of them a second
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html). Returns how many
 * parts were written, which the item that commits them records.
 */
export async function putGzippedParts(
  table: DynamoDbTable,
  json: string,
  keyOf: (part: number) => ItemKey,
  expiresAt: number,
): Promise<number> {
  const payloads = gzippedParts(json);
  for (const [part, payload] of payloads.entries()) {
    await table.db.send(new PutCommand({ TableName: table.name, Item: { ...keyOf(part), payload, expiresAt } }));
  }
  return payloads.length;
}

/** The JSON that `parts` gzipped parts hold, read consistently, one after another. */
export async function readGzippedParts(
  table: DynamoDbTable,
  parts: number,
  keyOf: (part: number) => ItemKey,
): Promise<string> {
  return gunzippedJson(await readPartPayloads(table, parts, keyOf, gzippedPartItem));
}

/** The payloads of `parts` parts, read consistently, one after another, each decoded with `codec`. */
export async function readPartPayloads<T>(
  table: DynamoDbTable,
  parts: number,
  keyOf: (part: number) => ItemKey,
  codec: z.ZodType<{ payload: T }>,
): Promise<T[]> {
  const payloads: T[] = [];
  for (let part = 0; part < parts; part++) {
    const key = keyOf(part);
    const { Item } = await table.db.send(new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }));
    payloads.push(decodeItem(codec, Item ?? {}, key).payload);
  }
  return payloads;
}
