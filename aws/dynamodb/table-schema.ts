/**
 * The incident table's keys, shared by the CDK stack and the test harness so the two cannot drift. What the stores
 * keep under them is laid out in table-keys.ts.
 */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLive: 'expiresAt',
  dayIndex: { name: 'byDay', partitionKey: 'day', sortKey: 'at' },
} as const;
