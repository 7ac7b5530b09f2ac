import type { Sample } from '../../shared/engine/signals.ts';
import type { SignalsInput } from './engine-fixtures.ts';

/**
 * A cluster whose nodes go NotReady while its apiserver stays healthy: what a cluster cut off from its nodes still
 * reports. `notReady` is written a minute a sample, null where the count is missing; with `replacedEvery`, a
 * replacement every that many minutes, as routine scaling does.
 */
export function nodesCutOffSignals(
  total: number,
  notReady: readonly Sample[],
  replacedEvery?: number,
): Record<string, string> {
  const steps = notReady.length;
  const signals = {
    'apiserver.write.p99': `0.2*${steps}`,
    'apiserver.requests': `3000*${steps}`,
    'apiserver.5xx': `1*${steps}`,
    'nodes.total': `${total}*${steps}`,
    'nodes.notready': notReady.map((n) => (n === null ? '_' : String(n))).join(' '),
    ...(replacedEvery !== undefined && {
      'nodes.replaced': Array.from({ length: steps }, (_, m) => (m % replacedEvery === 0 ? '1' : '0')).join(' '),
    }),
  } satisfies SignalsInput;
  return signals;
}
