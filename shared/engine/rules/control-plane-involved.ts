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
