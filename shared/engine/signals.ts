/**
 * The canonical per-cluster signals of scenario format v1. Rules read these names only; the poller maps each one to
 * the CloudWatch metrics of a cluster's source profile.
 */
export const SIGNALS = {
  'apiserver.write.p99': { unit: 'seconds', kind: 'gauge', meaning: 'p99 latency of mutating requests' },
  'apiserver.read.p99': { unit: 'seconds', kind: 'gauge', meaning: 'p99 latency of GET and LIST' },
  'apiserver.requests': { unit: 'count', kind: 'count', meaning: 'all API requests' },
  'apiserver.5xx': { unit: 'count', kind: 'count', meaning: 'requests answered 5xx' },
  'apiserver.429': { unit: 'count', kind: 'count', meaning: 'requests throttled' },
  'webhook.requests': { unit: 'count', kind: 'count', meaning: 'admission webhook calls' },
  'webhook.rejections': { unit: 'count', kind: 'count', meaning: 'webhook calls that rejected the request' },
  'webhook.failures': { unit: 'count', kind: 'count', meaning: 'webhook calls that errored or timed out' },
  'webhook.p99': { unit: 'seconds', kind: 'gauge', meaning: 'p99 webhook admission latency' },
  'nodes.total': { unit: 'count', kind: 'gauge', meaning: 'nodes registered' },
  'nodes.notready': { unit: 'count', kind: 'gauge', meaning: 'nodes not Ready' },
  'nodes.replaced': { unit: 'count', kind: 'count', meaning: 'nodes terminated or replaced' },
  'nodes.interrupted': { unit: 'count', kind: 'count', meaning: 'of those, spot interruptions and rebalances' },
  'nodes.scaledin': { unit: 'count', kind: 'count', meaning: 'of those, scale-ins' },
} as const satisfies Record<string, { unit: 'seconds' | 'count'; kind: 'gauge' | 'count'; meaning: string }>;

export type SignalName = keyof typeof SIGNALS;

export const SIGNAL_NAMES = Object.keys(SIGNALS) as SignalName[];

export function isSignalName(name: string): name is SignalName {
  return Object.hasOwn(SIGNALS, name);
}

/** One value per step; `null` is a step with no datapoint (a gap, NaN, or partial data). */
export type Sample = number | null;
