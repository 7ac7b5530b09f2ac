import { notReadyShare } from './operands.ts';

/**
 * NotReady nodes at a share of the cluster (the rule parameter `share` names) and at least `$minNotReady` of them, in
 * `m` of the last `n` minutes: the pair every rule on the NotReady share reads, so that one node of a small cluster
 * is never a share.
 */
export const nodesNotReadyFor = (share: `$${string}`, m: number, n: number) =>
  [
    { kind: 'sustained', of: notReadyShare, op: '>=', value: share, m, n },
    { kind: 'sustained', of: 'nodes.notready', op: '>=', value: '$minNotReady', m, n },
  ] as const;
