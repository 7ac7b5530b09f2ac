import { errorShare } from './operands.ts';

/**
 * "The control plane is involved": the parameters and the conditions two node rules use to leave a cluster whose
 * apiserver is slow or failing to the rules that page on it.
 */
export const controlPlaneInvolvedParams = {
  writeP99Seconds: {
    default: 1,
    unit: 'seconds',
    description: 'write p99 that would mean the control plane is involved',
  },
  errorRatio: {
    default: 0.05,
    unit: 'ratio',
    description: '5xx share that would mean the control plane is involved',
  },
} as const;
export const controlPlaneInvolved = [
  { kind: 'sustained', of: 'apiserver.write.p99', op: '>=', value: '$writeP99Seconds', m: 3, n: 5 },
  { kind: 'sustained', of: errorShare, op: '>=', value: '$errorRatio', m: 3, n: 5 },
] as const;

/**
 * The control plane involved at any time in the last hour (three minutes of it, together or not): for a rule that
 * counts the nodes replaced over the last half hour. A repair follows the failure it repairs by up to its toleration
 * (Karpenter repairs a node NotReady for 30 minutes, https://karpenter.sh/docs/concepts/disruption/), so the nodes
 * an outage got repaired, some after it ended, are that outage's until the half hour before them was healthy too.
 */
export const controlPlaneInvolvedWithinHour = [
  {
    kind: 'window',
    of: 'apiserver.write.p99',
    aggregate: 'count',
    window: '1h',
    where: { op: '>=', value: '$writeP99Seconds' },
    op: '>=',
    value: 3,
  },
  {
    kind: 'window',
    of: errorShare,
    aggregate: 'count',
    window: '1h',
    where: { op: '>=', value: '$errorRatio' },
    op: '>=',
    value: 3,
  },
] as const;
