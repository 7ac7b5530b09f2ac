import type { Hint } from './rule.ts';

/**
 * Where a hint applies, and how a page turns a rule's hints into the ones for the clusters it names: only the hints
 * that apply to their kind, with this cluster's name, Region, account and Auto Scaling groups in the commands.
 * docs/runbooks/README.md#where-a-hint-applies-and-how-it-cites says how to write them.
 */

/** How a cluster's nodes are run, as the deployment configuration says (`clusters[].source.nodes`). */
export const NODE_KINDS = ['managed-node-groups', 'self-managed-groups', 'karpenter', 'auto-mode', 'fargate'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

/** Who runs the control plane: EKS (the `eks` source profile) or the team itself (kOps, kubeadm, Cluster API). */
export const CONTROL_PLANE_KINDS = ['eks-control-plane', 'self-managed-control-plane'] as const;
export type ControlPlaneKind = (typeof CONTROL_PLANE_KINDS)[number];

export type HintScope = NodeKind | ControlPlaneKind;
export const HINT_SCOPES: readonly HintScope[] = [...NODE_KINDS, ...CONTROL_PLANE_KINDS];

/** How a page labels a hint that applies only to some clusters. */
export const SCOPE_LABELS: Readonly<Record<HintScope, string>> = {
  'managed-node-groups': 'EKS managed node groups',
  'self-managed-groups': 'Self-managed node groups',
  karpenter: 'Karpenter',
  'auto-mode': 'EKS Auto Mode',
  fargate: 'Fargate',
  'eks-control-plane': 'EKS control plane',
  'self-managed-control-plane': 'Self-managed control plane',
};

/** What the configuration says about one cluster, for its pages: its kind and the names its commands need. */
export interface ClusterFacts {
  readonly name: string;
  readonly region?: string;
  readonly accountId?: string;
  /** Unknown when the source profile does not say (the `custom` profile). */
  readonly controlPlane?: ControlPlaneKind;
  /** Unknown when the configuration does not say. */
  readonly nodes?: readonly NodeKind[];
  /** The Auto Scaling groups the configuration lists (`source.nodeGroups`). */
  readonly autoScalingGroups: readonly string[];
}

interface Placeholder {
  /** What the page shows when the configuration does not give the value: a name the reader fills in. */
  readonly unfilled: string;
  /** The words to put in the command, each to be quoted, or undefined when unknown. */
  readonly words: (facts: ClusterFacts) => readonly string[] | undefined;
}

const one = (value: string | undefined) => (value === undefined ? undefined : [value]);
const some = (values: readonly string[]) => (values.length > 0 ? values : undefined);

/**
 * The values a hint can name as `{name}`. A managed node group's Auto Scaling group must not be suspended by hand, so
 * `{selfManagedAsgs}` is filled only when the configuration says no managed node groups run on the cluster.
 */
export const PLACEHOLDERS: Readonly<Record<string, Placeholder>> = {
  cluster: { unfilled: '<cluster>', words: (f) => one(f.name) },
  region: { unfilled: '<region>', words: (f) => one(f.region) },
  account: { unfilled: '<cluster-account-id>', words: (f) => one(f.accountId) },
  asgs: { unfilled: '<asg>', words: (f) => some(f.autoScalingGroups) },
  selfManagedAsgs: {
    unfilled: '<self-managed-asg>',
    words: (f) =>
      f.nodes?.includes('self-managed-groups') && !f.nodes.includes('managed-node-groups')
        ? some(f.autoScalingGroups)
        : undefined,
  },
};

const PLACEHOLDER = new RegExp(`\\{(${Object.keys(PLACEHOLDERS).join('|')})\\}`, 'g');

/** A word as bash and zsh both read it literally: single quotes, and a quote inside closed, escaped and reopened. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * Replace each `{name}` with the quoted value every one of these clusters shares, or with its named placeholder
 * (`<cluster>`) when they differ or the configuration does not say. A page about one cluster gets its own values; a
 * page grouped over clusters keeps only what they have in common, so no command acts on the wrong one.
 */
export function fillPlaceholders(text: string, clusters: readonly (ClusterFacts | undefined)[]): string {
  return text.replace(PLACEHOLDER, (_, name: string) => {
    const placeholder = PLACEHOLDERS[name] as Placeholder;
    const each = clusters.map((facts) => (facts ? placeholder.words(facts) : undefined));
    const first = each[0];
    const shared =
      first !== undefined && each.every((words) => words !== undefined && words.join('\0') === first.join('\0'));
    return shared ? first.map(shellQuote).join(' ') : placeholder.unfilled;
  });
}

type Verdict = 'applies' | 'not' | 'unknown';

/** Whether a hint applies to a cluster, or the configuration does not say enough to tell. */
function verdictFor(hint: Hint, facts: ClusterFacts | undefined): Verdict {
  if (!hint.appliesTo || hint.appliesTo.length === 0) return 'applies';
  let unknown = false;
  for (const scope of hint.appliesTo) {
    const known: readonly HintScope[] | undefined = (CONTROL_PLANE_KINDS as readonly string[]).includes(scope)
      ? facts?.controlPlane && [facts.controlPlane]
      : facts?.nodes;
    if (known === undefined) unknown = true;
    else if (known.includes(scope)) return 'applies';
  }
  return unknown ? 'unknown' : 'not';
}

/** Why a page shows hints that may not apply: what the configuration leaves unsaid. */
function unknownKindNote(clusters: readonly (ClusterFacts | undefined)[]): Hint {
  const unsaid = [
    ...(clusters.some((facts) => facts?.nodes === undefined) ? ['how its nodes are run (`source.nodes`)'] : []),
    ...(clusters.some((facts) => facts?.controlPlane === undefined)
      ? ['who runs its control plane (`source.profile` "eks")']
      : []),
  ];
  const which = clusters.length === 1 ? 'this cluster' : 'some of these clusters';
  return {
    text: `The deployment configuration does not say ${unsaid.join(' or ')} for ${which}, so this page shows the hints for every kind of cluster, each labelled with where it applies.`,
    source: 'k8s-incident-sentinel, docs/runbooks/README.md#where-a-hint-applies-and-how-it-cites',
  };
}

/**
 * The hints a page about these clusters shows: those that apply to at least one of them, filled in for them, and a
 * note first when a hint is shown only because the configuration does not say whether it applies.
 */
export function hintsForClusters(hints: readonly Hint[], clusters: readonly (ClusterFacts | undefined)[]): Hint[] {
  const targets = clusters.length > 0 ? clusters : [undefined];
  let guessed = false;
  const shown = hints.flatMap((hint) => {
    const verdicts = targets.map((facts) => verdictFor(hint, facts));
    if (verdicts.includes('applies')) return [hint];
    if (verdicts.includes('unknown')) {
      guessed = true;
      return [hint];
    }
    return [];
  });
  const filled = shown.map((hint) => ({
    ...hint,
    text: fillPlaceholders(hint.text, targets),
    ...(hint.commands && { commands: hint.commands.map((command) => fillPlaceholders(command, targets)) }),
  }));
  return guessed ? [unknownKindNote(targets), ...filled] : filled;
}
