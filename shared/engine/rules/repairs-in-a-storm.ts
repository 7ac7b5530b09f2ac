import { notReadyShare, possibleRepairs, repairedShare } from './operands.ts';

/**
 * "Nodes are being repaired in a storm": the replacements node-repair-storm counts, with their parameters, shared with
 * nodes-unreachable, which stands aside whenever these hold. node-repair-storm pages only when, besides, a third of the
 * nodes are NotReady or the control plane struggles, so a storm with a quarter to 30 % NotReady on a healthy control
 * plane gets neither (docs/rules.md, Known limits). Relative to the cluster, so that a large cluster's routine churn
 * (a node or two a minute of 2,000) never reads as repairs.
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
  loopMinutes: {
    default: 8,
    unit: 'minutes',
    description: 'minutes of the last 10 with a repair, for a repair loop at a rate-capped pace on a large cluster',
  },
  loopRise: {
    default: 1,
    unit: 'nodes per minute',
    description: 'repairs a minute above the cluster’s own rate of the 50 minutes before: a loop starting',
  },
  loopNotReadyShare: {
    default: 0.05,
    unit: 'ratio',
    description: 'share of nodes NotReady that keeps a rate-capped loop a storm once it has become its own baseline',
  },
  repairBrakeShare: {
    default: 0.2,
    unit: 'ratio',
    description:
      'share of nodes unhealthy above which EKS stops repairing a node group (its default brake): NotReady above it is not the loop’s',
  },
} as const;

// A rate-capped loop on a large cluster: EKS repairs at most maxParallelNodesRepaired nodes of a node group at once
// and stops above a fifth of it unhealthy, so a loop that recreates every node of 2,000 over a day repairs a node or
// two a minute, under every share above and at the pace of routine churn. What sets it apart is that it does not stop:
// a repair in nearly every minute, starting at least a node a minute above the cluster's own rate, and, once the loop
// has run long enough to be its own baseline, with a twentieth of the nodes or more NotReady but fewer than the brake
// lets repair go on with. Routine churn keeps a handful of nodes NotReady; a zone cut off holds more than the brake, and
// EKS stops repairing it, so this never hands nodes-unreachable's ticket to a storm.
const repairsLoop = {
  kind: 'allOf',
  conditions: [
    {
      kind: 'window',
      of: possibleRepairs,
      aggregate: 'count',
      window: '10m',
      where: { op: '>=', value: 1 },
      op: '>=',
      value: '$loopMinutes',
    },
    {
      kind: 'anyOf',
      conditions: [
        {
          kind: 'change',
          of: possibleRepairs,
          aggregate: 'avg',
          window: '10m',
          baseline: '50m',
          mode: 'delta',
          op: '>=',
          value: '$loopRise',
        },
        {
          kind: 'allOf',
          conditions: [
            { kind: 'sustained', of: notReadyShare, op: '>=', value: '$loopNotReadyShare', m: 10, n: 12 },
            { kind: 'sustained', of: notReadyShare, op: '<=', value: '$repairBrakeShare', m: 10, n: 12 },
          ],
        },
      ],
    },
  ],
} as const;

// A fifth of the cluster within half an hour, or repairs in quick succession: a repair loop replaces a node, the
// replacement fails like the one before it, and the next repair follows within minutes, so the second or third repair
// already shows the storm that the half hour would only confirm later. On a large cluster, the rate-capped loop above.
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
    repairsLoop,
  ],
} as const;
