import { describe, expect, it } from '@jest/globals';
import { requestUnits } from '../support/dynamodb-request-units.ts';

const S = (value: string) => ({ S: value });
const consumed = (units: number) => ({ TableName: 'sentinel', CapacityUnits: units });

describe('the request units of a DynamoDB request, as DynamoDB bills them', () => {
  it('charges a put its reported units on its partition key, and at least one', () => {
    const item = { Item: { pk: S('OPEN'), sk: S('a') } };

    expect(requestUnits('PutItem', item, consumed(2))).toEqual({
      kind: 'write',
      units: 2,
      charges: [{ partition: 'OPEN', units: 2 }],
    });
    expect(requestUnits('PutItem', item).units).toBe(1);
  });

  it('expects of a put before its answer the size of its item, a kilobyte a unit rounded up', () => {
    const item = (bytes: number) => ({ Item: { pk: S('OPEN'), sk: S('a'), payload: S('x'.repeat(bytes)) } });
    // `pk`, `sk` and `payload` with their values: 2 + 4 + 2 + 1 + 7 bytes beside the payload's own.
    const besides = 16;

    expect(requestUnits('PutItem', item(1024 - besides)).units).toBe(1);
    expect(requestUnits('PutItem', item(1025 - besides)).units).toBe(2);
    expect(requestUnits('PutItem', item(3 * 1024 - besides)).units).toBe(3);
  });

  it("charges a put of an item that carries the index's key on the index's partition of that value too", () => {
    const item = { Item: { pk: S('INCIDENT'), sk: S('a'), day: S('INCIDENT#2026-11-27'), at: S('x') } };

    expect(requestUnits('PutItem', item, consumed(3))).toEqual({
      kind: 'write',
      units: 6,
      charges: [
        { partition: 'INCIDENT', units: 3 },
        { partition: 'byDay:INCIDENT#2026-11-27', units: 3 },
      ],
    });
  });

  it('charges an update that moves an item within the index the new entry and the removal of the old', () => {
    const update = {
      Key: { pk: S('OUTBOX'), sk: S('n') },
      ExpressionAttributeNames: { '#day': 'day' },
      ExpressionAttributeValues: { ':day': S('NOTIFICATION#2026-11-27') },
    };

    expect(requestUnits('UpdateItem', update, consumed(1)).charges).toEqual([
      { partition: 'OUTBOX', units: 1 },
      { partition: 'byDay:NOTIFICATION#2026-11-27', units: 1 },
      { partition: 'byDay:?', units: 1 },
    ]);
  });

  it('charges a read at least half a unit eventually consistent and one unit consistent', () => {
    const query = { ExpressionAttributeValues: { ':pk': S('OPEN') } };

    expect(requestUnits('Query', query)).toEqual({
      kind: 'read',
      units: 0.5,
      charges: [{ partition: 'OPEN', units: 0.5 }],
    });
    expect(requestUnits('Query', { ...query, ConsistentRead: true }, consumed(37.5)).units).toBe(37.5);
    expect(requestUnits('GetItem', { Key: { pk: S('STEP') }, ConsistentRead: true }).units).toBe(1);
  });

  it("charges a query of the index on the index's partition it reads", () => {
    const query = { IndexName: 'byDay', ExpressionAttributeValues: { ':day': S('INCIDENT#2026-11-27') } };

    expect(requestUnits('Query', query, consumed(4)).charges).toEqual([
      { partition: 'byDay:INCIDENT#2026-11-27', units: 4 },
    ]);
  });
});
