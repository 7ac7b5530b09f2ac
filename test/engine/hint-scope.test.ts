import { describe, expect, it } from '@jest/globals';
import { clusterFacts } from '../../shared/config/cluster-facts.ts';
import { clusterSchema } from '../../shared/config/deployment-config.ts';
import { type ClusterFacts, fillPlaceholders, hintsForClusters, shellQuote } from '../../shared/engine/hint-scope.ts';
import type { Hint } from '../../shared/engine/rule.ts';

const facts = (fields: Partial<ClusterFacts> = {}): ClusterFacts => ({
  name: 'prod-euw1',
  region: 'eu-west-1',
  accountId: '111122223333',
  controlPlane: 'eks-control-plane',
  nodes: ['managed-node-groups'],
  autoScalingGroups: [],
  ...fields,
});

const HINTS: readonly Hint[] = [
  { text: 'Everyone.', source: 'a' },
  { text: 'Node groups.', source: 'b', appliesTo: ['managed-node-groups'], commands: ['aws eks x --name {cluster}'] },
  { text: 'Karpenter.', source: 'c', appliesTo: ['karpenter'] },
  { text: 'EKS only.', source: 'd', appliesTo: ['eks-control-plane'] },
  { text: 'Own apiservers.', source: 'e', appliesTo: ['self-managed-control-plane'] },
];
const texts = (hints: readonly Hint[]) => hints.map((hint) => hint.text);

describe('hintsForClusters', () => {
  it('shows only the hints that apply to the cluster’s kind', () => {
    expect(texts(hintsForClusters(HINTS, [facts()]))).toEqual(['Everyone.', 'Node groups.', 'EKS only.']);
  });

  it('shows a hint for any of the kinds a cluster runs', () => {
    const mixed = facts({ nodes: ['managed-node-groups', 'karpenter'] });

    expect(texts(hintsForClusters(HINTS, [mixed]))).toEqual(['Everyone.', 'Node groups.', 'Karpenter.', 'EKS only.']);
  });

  it('shows every hint, with a note first, when the configuration does not say how the nodes run', () => {
    const shown = hintsForClusters(HINTS, [facts({ nodes: undefined })]);

    expect(texts(shown).slice(1)).toEqual(['Everyone.', 'Node groups.', 'Karpenter.', 'EKS only.']);
    expect(shown[0]?.text).toMatch(/does not say how its nodes are run .*every kind of cluster, each labelled/);
  });

  it('shows the hints for both kinds of control plane when the source profile does not say', () => {
    const custom = clusterFacts(
      clusterSchema.parse({ name: 'kops-1', source: { profile: 'custom', nodes: 'karpenter' } }),
    );
    const shown = hintsForClusters(HINTS, [custom]);

    expect(texts(shown).slice(1)).toEqual(['Everyone.', 'Karpenter.', 'EKS only.', 'Own apiservers.']);
    expect(shown[0]?.text).toMatch(/who runs its control plane/);
  });

  it('adds no note when every hint shown is known to apply', () => {
    expect(hintsForClusters(HINTS, [facts({ nodes: ['fargate'] })]).map((h) => h.source)).toEqual(['a', 'd']);
  });

  it('shows a hint that applies to any cluster of a grouped page', () => {
    const shown = hintsForClusters(HINTS, [facts(), facts({ name: 'prod-use1', nodes: ['karpenter'] })]);

    expect(texts(shown)).toEqual(['Everyone.', 'Node groups.', 'Karpenter.', 'EKS only.']);
  });

  it('fills the commands in for the cluster, quoted', () => {
    const shown = hintsForClusters(HINTS, [facts()]);

    expect(shown.find((hint) => hint.source === 'b')?.commands).toEqual(["aws eks x --name 'prod-euw1'"]);
  });

  it('keeps the rule’s own hints as they were', () => {
    hintsForClusters(HINTS, [facts()]);

    expect(HINTS[1]?.commands).toEqual(['aws eks x --name {cluster}']);
  });
});

describe('fillPlaceholders', () => {
  const template = 'aws eks x --name {cluster} --region {region} --account {account}';

  it('names every value it does not know', () => {
    expect(fillPlaceholders(template, [])).toBe(
      'aws eks x --name <cluster> --region <region> --account <cluster-account-id>',
    );
  });

  it('fills only what every cluster of a grouped page shares', () => {
    const other = facts({ name: 'prod-euw2', accountId: '111122223333' });

    expect(fillPlaceholders(template, [facts(), other])).toBe(
      "aws eks x --name <cluster> --region 'eu-west-1' --account '111122223333'",
    );
  });

  it('leaves a value unfilled when one cluster of the page has no configuration', () => {
    expect(fillPlaceholders('{region}', [facts(), undefined])).toBe('<region>');
  });

  it('writes a list of Auto Scaling groups as one quoted word each', () => {
    const groups = facts({ nodes: ['self-managed-groups'], autoScalingGroups: ["blue 'nodes'", 'green$'] });

    expect(fillPlaceholders('for asg in {asgs}; do :; done', [groups])).toBe(
      `for asg in 'blue '\\''nodes'\\''' 'green$'; do :; done`,
    );
  });

  it('never offers to suspend the Auto Scaling group of a managed node group', () => {
    const mixed = facts({ nodes: ['self-managed-groups', 'managed-node-groups'], autoScalingGroups: ['a'] });
    const selfManaged = facts({ nodes: ['self-managed-groups'], autoScalingGroups: ['a'] });
    const unsaid = facts({ nodes: undefined, autoScalingGroups: ['a'] });

    expect([mixed, selfManaged, unsaid].map((f) => fillPlaceholders('{selfManagedAsgs}', [f]))).toEqual([
      '<self-managed-asg>',
      "'a'",
      '<self-managed-asg>',
    ]);
  });
});

describe('shellQuote', () => {
  it('quotes a word so that bash and zsh read it literally', () => {
    expect([shellQuote('prod'), shellQuote("it's"), shellQuote('$(rm -rf ~) *')]).toEqual([
      "'prod'",
      "'it'\\''s'",
      "'$(rm -rf ~) *'",
    ]);
  });
});

describe('clusterFacts', () => {
  it('reads the kind of nodes as one kind or a list', () => {
    const one = clusterFacts(clusterSchema.parse({ name: 'a', source: { nodes: 'auto-mode' } }));
    const list = clusterFacts(clusterSchema.parse({ name: 'a', source: { nodes: ['karpenter', 'fargate'] } }));
    const unsaid = clusterFacts(clusterSchema.parse({ name: 'a' }));

    expect([one.nodes, list.nodes, unsaid.nodes, unsaid.controlPlane]).toEqual([
      ['auto-mode'],
      ['karpenter', 'fargate'],
      undefined,
      'eks-control-plane',
    ]);
  });

  it('rejects a kind of nodes it does not know, naming the kinds', () => {
    const parsed = clusterSchema.safeParse({ name: 'a', source: { nodes: 'eks-anywhere' } });

    expect(parsed.success ? '' : parsed.error.issues[0]?.message).toMatch(/managed-node-groups, self-managed-groups/);
  });
});
