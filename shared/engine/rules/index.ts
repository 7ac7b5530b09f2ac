import type { Rule } from '../rule.ts';
import { apiserverRestartErrors } from './apiserver-restart-errors.ts';
import { apiserverSustainedErrors } from './apiserver-sustained-errors.ts';
import { controlPlaneDegraded } from './control-plane-degraded.ts';
import { nodeChurn } from './node-churn.ts';
import { nodeRepairStorm } from './node-repair-storm.ts';
import { nodesNotReadyAtScale } from './nodes-notready-at-scale.ts';
import { nodesUnreachable } from './nodes-unreachable.ts';
import { signalsMissing } from './signals-missing.ts';
import { webhookAvailabilityGaps } from './webhook-availability-gaps.ts';
import { webhookBlackhole } from './webhook-blackhole.ts';
import { webhookFailingOpen } from './webhook-failing-open.ts';
import { webhookLatencyTax } from './webhook-latency-tax.ts';

/**
 * The default rule set, one file per rule, each named by its rule id beside its runbook (docs/runbooks/<id>.md). Ids are
 * a public contract; thresholds are justified in docs/rules.md and checked on the scenario corpus. A new default rule
 * is a file here, a line below and a runbook.
 */
export const DEFAULT_RULES: readonly Rule[] = [
  webhookBlackhole,
  controlPlaneDegraded,
  nodeRepairStorm,
  webhookLatencyTax,
  webhookAvailabilityGaps,
  apiserverRestartErrors,
  nodeChurn,
  nodesUnreachable,
  webhookFailingOpen,
  signalsMissing,
  apiserverSustainedErrors,
  nodesNotReadyAtScale,
];
