import type { Rule } from '../rule.ts';
import { errorShare, notReadyShare } from './operands.ts';
import { pauseAutoRepair } from './pause-auto-repair.ts';
import { repairsInAStorm, repairsInAStormParams } from './repairs-in-a-storm.ts';
import { OPA_POSTMORTEM } from './sources.ts';

/** `node-repair-storm`: see docs/rules.md for why each number, and its runbook (docs/runbooks/node-repair-storm.md) for what to do. */
export const nodeRepairStorm: Rule = {
  id: 'node-repair-storm',
  title: 'Node auto-repair is replacing nodes in a storm',
  summary:
    'Many nodes are being replaced in a short window, relative to the cluster size, while nodes fail to report or the control plane struggles. When the control plane is degraded, auto-repair is reacting to kubelets that cannot report, not to broken nodes.',
  severity: 'page',
  params: {
    ...repairsInAStormParams,
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
      repairsInAStorm,
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
