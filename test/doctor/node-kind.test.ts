import { describe, expect, it } from '@jest/globals';
import { describeNodeKind, type EksNodeFacts, nodeKindOf } from '../../shared/doctor/node-kind.ts';

const NOTHING: EksNodeFacts = { autoMode: false, managedNodeGroups: [], fargateProfiles: [] };

describe('the kind of nodes EKS reports', () => {
  it('names each kind EKS lists, in the order the configuration lists its kinds', () => {
    expect(nodeKindOf({ ...NOTHING, managedNodeGroups: ['general', 'system'] }).kinds).toEqual(['managed-node-groups']);
    expect(nodeKindOf({ ...NOTHING, autoMode: true }).kinds).toEqual(['auto-mode']);
    expect(
      nodeKindOf({ autoMode: true, managedNodeGroups: ['system'], fargateProfiles: ['kube-system'] }).kinds,
    ).toEqual(['managed-node-groups', 'auto-mode', 'fargate']);
  });

  it('says self-managed or Karpenter, undecided, when EKS lists nothing and the configuration names no group', () => {
    expect(nodeKindOf(NOTHING)).toEqual({
      kinds: [],
      undecided: ['self-managed-groups', 'karpenter'],
      reported: 'no managed node group, no Fargate profile and Auto Mode off',
    });
  });

  it('takes Auto Scaling groups the configuration names, which EKS does not manage, as self-managed groups', () => {
    expect(nodeKindOf(NOTHING, ['eks-prod-general']).kinds).toEqual(['self-managed-groups']);
    expect(nodeKindOf({ ...NOTHING, managedNodeGroups: ['general'] }, ['eks-prod-general']).kinds).toEqual([
      'managed-node-groups',
    ]);
  });

  it('prints the setting to add, a string for one kind and a list for several', () => {
    expect(
      describeNodeKind('prod-euw1', { status: 'described', facts: { ...NOTHING, managedNodeGroups: ['a', 'b'] } }, []),
    ).toBe('prod-euw1: EKS reports managed node groups (2): add "source": {"nodes": "managed-node-groups"}');
    expect(
      describeNodeKind(
        'edge',
        { status: 'described', facts: { autoMode: true, managedNodeGroups: [], fargateProfiles: ['default'] } },
        [],
      ),
    ).toBe('edge: EKS reports Auto Mode, Fargate profiles (1): add "source": {"nodes": ["auto-mode","fargate"]}');
    expect(describeNodeKind('lab', { status: 'described', facts: NOTHING }, [])).toBe(
      'lab: EKS reports no managed node group, no Fargate profile and Auto Mode off: the nodes are self-managed-groups or karpenter, which EKS cannot tell apart: add "source": {"nodes": "self-managed-groups"} or "source": {"nodes": "karpenter"}',
    );
    expect(describeNodeKind('gone', { status: 'not-asked', reason: 'EKS has no cluster named gone' }, [])).toBe(
      'gone: EKS has no cluster named gone',
    );
  });
});
