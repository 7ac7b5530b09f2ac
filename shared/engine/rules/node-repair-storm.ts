import type { Rule } from '../rule.ts';
import { pauseAutoRepair } from './pause-auto-repair.ts';
import {
  loopStarting,
  NODE_REPAIR_STORM,
  nodeRepairStormCondition,
  repairsInAStormParams,
  STORM_GATE,
  stormGateParams,
} from './repairs-in-a-storm.ts';
import { OPA_POSTMORTEM } from './sources.ts';

/** `node-repair-storm`: see docs/rules.md for why each number, and its runbook (docs/runbooks/node-repair-storm.md) for what to do. */
export const nodeRepairStorm: Rule = {
  id: NODE_REPAIR_STORM,
  title: 'Node auto-repair is replacing nodes in a storm',
  summary:
    'Nodes are being replaced in a repair loop or a storm: repairs above the cluster’s own rate while a share of its nodes is held NotReady (each replacement failing like the node before it), or many nodes replaced in a short window, relative to the cluster size, while nodes fail to report or the control plane struggles. When the control plane is degraded, auto-repair is reacting to kubelets that cannot report, not to broken nodes.',
  severity: 'page',
  params: { ...repairsInAStormParams, ...stormGateParams },
  when: nodeRepairStormCondition(STORM_GATE),
  explains: ['node-churn'],
  holdDown: '30m',
  // A rolling node upgrade replaces many nodes on purpose; a storm while the control plane is down is not that, and
  // neither is a repair loop starting (its replacements failing like the nodes before them), which an upgrade that
  // rolls out a broken node image starts on a healthy control plane.
  maintenance: {
    notifyWhenFiring: ['control-plane-degraded', 'webhook-blackhole'],
    notifyWhen: loopStarting(STORM_GATE),
  },
  hints: [
    ...pauseAutoRepair,
    {
      text: 'Fix the control plane first: nodes that cannot report status to a struggling apiserver look dead to auto-repair, and replacing them adds load without fixing anything.',
      source: OPA_POSTMORTEM,
    },
  ],
  runbook: 'docs/runbooks/node-repair-storm.md',
};
