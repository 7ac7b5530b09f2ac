/**
 * How many requests to the store one fleet-sized batch keeps in flight. A step of a fleet-wide outage writes an
 * incident per cluster, and a slow cycle records a tripwire state per alarm: one at a time, at a few milliseconds
 * each, 10,000 of them would take most of the poller's 50 s; all at once, the poll holds 10,000 requests in memory
 * together. DynamoDB takes thousands of writes a second on demand, so a few dozen at once cost nothing it would refuse.
 */
export const STORE_REQUESTS_IN_FLIGHT = 32;

/**
 * `work` over every item, at most `limit` at once, the results in the items' order; the first failure fails the
 * whole. Where a fleet-sized list of calls goes to a store, each call in flight holds a request in memory: a few dozen
 * keep the store as busy as ten thousand would.
 */
export async function atMost<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) results[index] = await work(items[index] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
