import type { Rule } from '../rule.ts';
import { errorShare, notReadyShare, possibleRepairs, repairedShare } from './operands.ts';
import { pauseAutoRepair } from './pause-auto-repair.ts';
import { OPA_POSTMORTEM } from './sources.ts';

/** `node-repair-storm`: see docs/rules.md for why each number, and its runbook (docs/runbooks/node-repair-storm.md) for what to do. */
export const nodeRepairStorm: Rule = {
  id: 'node-repair-storm',
  title: 'Node auto-repair is replacing nodes in a storm',
  summary:
    'Many nodes are being replaced in a short window, relative to the cluster size, while nodes fail to report or the control plane struggles. When the control plane is degraded, auto-repair is reacting to kubelets that cannot report, not to broken nodes.',
  severity: 'page',
  params: {
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
    notReadyShare: { default: 0.3, unit: 'ratio', description: 'share of nodes NotReady at once' },
    writeP99Seconds: {
      default: 1,
      unit: 'seconds',
      description: 'write p99 that counts as a struggling control plane',
    },
    errorRatio: { default: 0.02, unit: 'ratio', description: '5xx share that counts as a struggling control plane' },
  },
  when: {
    kind: 'allOf',
    conditions: [
      {
        // A fifth of the cluster within half an hour, or repairs in quick succession: a repair loop replaces a node,
        // the replacement fails like the one before it, and the next repair follows within minutes, so the second or
        // third repair already shows the storm that the half hour would only confirm later.
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
              {
                kind: 'window',
                of: possibleRepairs,
                aggregate: 'sum',
                window: '10m',
                op: '>=',
                value: '$stormRepairs',
              },
            ],
          },
        ],
      },
      {
        kind: 'anyOf',
        conditions: [
          { kind: 'sustained', of: notReadyShare, op: '>=', value: '$notReadyShare', m: 3, n: 5 },
          { kind: 'sustained', of: 'apiserver.write.p99', op: '>=', value: '$writeP99Seconds', m: 2, n: 5 },
          { kind: 'sustained', of: errorShare, op: '>=', value: '$errorRatio', m: 2, n: 5 },
        ],
      },
    ],
  },
  explains: ['node-churn'],
  holdDown: '15m',
  // A rolling node upgrade replaces many nodes on purpose; a storm while the control plane is down is not that.
  maintenance: { notifyWhenFiring: ['control-plane-degraded', 'webhook-blackhole'] },
  hints: [
    ...pauseAutoRepair,
    {
      text: 'Fix the control plane first: nodes that cannot report status to a struggling apiserver look dead to auto-repair, and replacing them adds load without fixing anything.',
      source: OPA_POSTMORTEM,
    },
  ],
  runbook: 'docs/runbooks/node-repair-storm.md',
};
