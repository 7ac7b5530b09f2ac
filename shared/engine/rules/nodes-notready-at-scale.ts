import type { Rule } from '../rule.ts';
import { nodesNotReadyFor } from './nodes-notready-for.ts';
import { notReadyShare } from './operands.ts';
import { pauseAutoRepair } from './pause-auto-repair.ts';
import { DATADOG_2023, EKS_NODES, EKS_VPC_CNI, K8S_NODE_LIFECYCLE, K8S_NODES } from './sources.ts';

/**
 * `nodes-notready-at-scale`: half of a cluster's nodes NotReady is no node failure but a cut: a network, an image or
 * an update that reached every node. docs/rules.md says why a half, and its runbook what to do.
 */
export const nodesNotReadyAtScale: Rule = {
  id: 'nodes-notready-at-scale',
  title: 'Half or more of the nodes are NotReady',
  summary:
    'At least half of the cluster’s nodes stopped reporting Ready within minutes. No single zone cut off makes half of a three-zone cluster, and Kubernetes itself stops trusting the nodes at this scale: the node lifecycle controller slows or stops evicting once 55% of a zone is NotReady, because so many at once means the nodes lost their network or the control plane, not that they died. Workloads on those nodes are unreachable; whatever changed on every node at once (an OS update, an image, a network change) is the cause.',
  severity: 'page',
  params: {
    notReadyShare: {
      default: 0.5,
      unit: 'ratio',
      description: 'share of nodes NotReady: more than one zone of three can make',
    },
    climbShare: {
      default: 0.25,
      unit: 'ratio',
      description:
        'share of nodes NotReady in each of the two minutes before a first minute at half: one zone of three, climbing',
    },
    minNotReady: { default: 3, unit: 'nodes', description: 'fewest NotReady nodes that count, for small clusters' },
  },
  // Three minutes of evidence, in one of two shapes. A jump: half or more in 2 of 3 minutes, since NotReady shows 40
  // to 50 seconds after the kubelets stop reporting (node monitor grace period) and a rolling replacement or a spot
  // drain takes a few nodes at a time, never half, so a second minute at half confirms what no routine change makes,
  // and a count that glitches for one minute does not page. A climb: a change that spreads over the nodes (an update
  // on a randomized timer, a rollout) passes a zone's worth first; two minutes at a quarter or more and then half is
  // more than one zone cut off makes, so its first minute at half pages instead of its second.
  when: {
    kind: 'anyOf',
    conditions: [
      {
        kind: 'allOf',
        conditions: nodesNotReadyFor('$notReadyShare', 2, 3),
      },
      {
        kind: 'allOf',
        conditions: [
          { kind: 'threshold', of: notReadyShare, op: '>=', value: '$notReadyShare' },
          ...nodesNotReadyFor('$climbShare', 3, 3),
        ],
      },
    ],
  },
  explains: ['nodes-unreachable', 'node-repair-storm', 'node-churn'],
  holdDown: '15m',
  // No upgrade takes half the nodes down at once: a window does not hide it.
  maintenance: 'notify',
  hints: [
    {
      text: 'See which nodes are NotReady, since when and in which zone. Ready Unknown with "Kubelet stopped posting node status" on nodes of every zone means the kubelets lost their network or their path to the control plane, not the nodes themselves.',
      commands: [
        'kubectl get nodes -L topology.kubernetes.io/zone -o wide',
        'kubectl get nodes -o jsonpath=\'{range .items[*]}{.metadata.name}{"\\t"}{.status.conditions[?(@.type=="Ready")].status}{"\\t"}{.status.conditions[?(@.type=="Ready")].reason}{"\\n"}{end}\'',
      ],
      source: K8S_NODES,
    },
    {
      text: 'What changed on every node at once? An OS package update (unattended upgrades on a schedule that is the same in every Region took the network of tens of thousands of nodes down together in the Datadog outage), a new node image, a CNI rollout. Stop the rollout or the updates first; on an affected node, compare the routes and the CNI’s rules with a healthy one.',
      commands: [
        'kubectl -n kube-system get daemonset aws-node',
        'kubectl -n kube-system logs -l k8s-app=aws-node -c aws-node --tail=50 --field-selector spec.nodeName=<node-name>',
      ],
      source: `${DATADOG_2023}; ${EKS_VPC_CNI}`,
    },
    {
      text: 'Check the path from the nodes to the control plane: the cluster and node security groups still allow 443 between them, and the subnets’ route tables and network ACLs let it through.',
      appliesTo: ['eks-control-plane'],
      commands: ["aws eks describe-cluster --name {cluster} --region {region} --query 'cluster.resourcesVpcConfig'"],
      source: EKS_NODES,
    },
    {
      text: 'Expect few evictions: at this share the node lifecycle controller treats the zones as disrupted and evicts slowly (large clusters) or not at all (50 nodes or fewer, or every zone disrupted). Pods stay bound to nodes that cannot run them until the nodes come back; do not force-delete them before you know why.',
      source: K8S_NODE_LIFECYCLE,
    },
    ...pauseAutoRepair,
  ],
  runbook: 'docs/runbooks/nodes-notready-at-scale.md',
};
