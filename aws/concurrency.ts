/**
 * Runs `work` over `items` with at most `limit` in flight and at most `perSecond` started per second, so that a
 * poll over a large fleet stays under CloudWatch's GetMetricData quota (50 TPS) instead of relying on retries.
 */
export async function mapPaced<T, R>(
  items: readonly T[],
  options: { limit: number; perSecond: number },
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const spacingMs = 1000 / options.perSecond;
  let nextStart = 0;
  let cursor = 0;
  const worker = async () => {
    while (cursor < items.length) {
      const index = cursor++;
      const now = Date.now();
      const startAt = Math.max(now, nextStart);
      nextStart = startAt + spacingMs;
      if (startAt > now) await new Promise((resolve) => setTimeout(resolve, startAt - now));
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.limit, items.length) }, worker));
  return results;
}
