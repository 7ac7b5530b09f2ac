import { gunzipSync, gzipSync } from 'node:zlib';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDbTable } from './table.ts';
import { decodeItem, gzippedPartItem } from './table-items.ts';
import type { ItemKey } from './table-keys.ts';
import { byteParts } from './table-limits.ts';

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
  const payloads = byteParts(gzipSync(json));
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
  const payload: Uint8Array[] = [];
  for (let part = 0; part < parts; part++) {
    const key = keyOf(part);
    const { Item } = await table.db.send(new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }));
    payload.push(decodeItem(gzippedPartItem, Item ?? {}, key).payload);
  }
  return gunzipSync(Buffer.concat(payload)).toString('utf8');
}
