import { possibleRepairs, repairedShare } from './operands.ts';

/**
 * "Nodes are being repaired in a storm": the replacements node-repair-storm counts, with their parameters, shared with
 * nodes-unreachable, which leaves a cluster to node-repair-storm exactly when these hold. Relative to the cluster, so
 * that a large cluster's routine churn (a node or two a minute of 2,000) never reads as repairs.
 */
export const repairsInAStormParams = {
  replacedShare: {
    default: 0.2,
    unit: 'ratio',
    description: 'share of the cluster replaced within 30 minutes, spot interruptions and scale-ins left out',
  },
  minReplaced: {
    default: 3,
    unit: 'nodes',
    description: 'fewest replacements that count, for small clusters (spot interruptions and scale-ins left out)',
  },
  stormShare: {
    default: 0.1,
    unit: 'ratio',
    description:
      'share of the cluster repaired within 10 minutes: repairs in quick succession, half again the rate of the 30-minute share',
  },
  stormRepairs: {
    default: 2,
    unit: 'nodes',
    description: 'fewest repairs within 10 minutes that count as a storm (spot interruptions and scale-ins left out)',
  },
} as const;

// A fifth of the cluster within half an hour, or repairs in quick succession: a repair loop replaces a node, the
// replacement fails like the one before it, and the next repair follows within minutes, so the second or third repair
// already shows the storm that the half hour would only confirm later.
export const repairsInAStorm = {
  kind: 'anyOf',
  conditions: [
    {
      kind: 'allOf',
      conditions: [
        { kind: 'window', of: repairedShare, aggregate: 'sum', window: '30m', op: '>=', value: '$replacedShare' },
        { kind: 'window', of: possibleRepairs, aggregate: 'sum', window: '30m', op: '>=', value: '$minReplaced' },
      ],
    },
    {
      kind: 'allOf',
      conditions: [
        { kind: 'window', of: repairedShare, aggregate: 'sum', window: '10m', op: '>=', value: '$stormShare' },
        { kind: 'window', of: possibleRepairs, aggregate: 'sum', window: '10m', op: '>=', value: '$stormRepairs' },
      ],
    },
  ],
} as const;
