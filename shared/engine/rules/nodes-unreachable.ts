import type { Rule } from '../rule.ts';
import { controlPlaneInvolved, controlPlaneInvolvedParams } from './control-plane-involved.ts';
import { nodesNotReadyFor } from './nodes-notready-for.ts';
import { pauseAutoRepair } from './pause-auto-repair.ts';
import {
  nodeRepairStormCondition,
  STORM_GATE_IN_NODES_UNREACHABLE,
  stormParamsFollowed,
} from './repairs-in-a-storm.ts';
import { EKS_NODES, EKS_VPC_CNI, K8S_NODES } from './sources.ts';

/** `nodes-unreachable`: see docs/rules.md for why each number, and its runbook (docs/runbooks/nodes-unreachable.md) for what to do. */
export const nodesUnreachable: Rule = {
  id: 'nodes-unreachable',
  title: 'Many nodes are NotReady and nothing replaces them',
  summary:
    'A large share of the nodes has stopped reporting Ready for many minutes while the apiserver answers the rest of the cluster normally and no nodes are being replaced: the kubelets have lost their path to the control plane (security group, route, endpoint or DNS change), or the node network or CNI is failing. Pods on those nodes are evicted five minutes after they go NotReady, and nothing new can be scheduled there.',
  severity: 'ticket',
  params: {
    notReadyShare: {
      default: 0.25,
      unit: 'ratio',
      description: 'share of nodes NotReady: a quarter catches one zone of three cut off',
    },
    minNotReady: { default: 3, unit: 'nodes', description: 'fewest NotReady nodes that count, for small clusters' },
    ...stormParamsFollowed,
    ...controlPlaneInvolvedParams,
  },
  // Ten of twelve minutes: past the five minutes after which NotReady nodes' pods are evicted, and longer than the
  // NotReady blips of a rolling upgrade or a spot drain.
  when: {
    kind: 'allOf',
    conditions: [
      ...nodesNotReadyFor('$notReadyShare', 10, 12),
      {
        // node-repair-storm does not fire (its whole condition, with its numbers: a large cluster's routine churn is
        // not a storm, and a storm with fewer than 30 % NotReady on a healthy control plane is this ticket, not that
        // page), and the apiserver is healthy; on a cluster without a replacement signal the rule still runs, on what
        // it has.
        kind: 'noneOf',
        conditions: [nodeRepairStormCondition(STORM_GATE_IN_NODES_UNREACHABLE), ...controlPlaneInvolved],
      },
    ],
  },
  explains: [],
  holdDown: '15m',
  maintenance: 'mute',
  hints: [
    {
      text: 'See which nodes are NotReady, since when and in which zone. A Ready condition of Unknown with "Kubelet stopped posting node status" means the kubelet cannot reach the apiserver; False means it reports a problem. Nodes that share a zone or a subnet point at that zone’s network path.',
      commands: ['kubectl get nodes -L topology.kubernetes.io/zone -o wide', 'kubectl describe node <node-name>'],
      source: K8S_NODES,
    },
    {
      text: 'Check the path from the nodes to the control plane: the cluster security group and the node security groups still allow 443 between them, the subnets’ route tables and network ACLs let it through, and with private endpoint access the endpoint resolves inside the VPC.',
      appliesTo: ['eks-control-plane'],
      commands: ["aws eks describe-cluster --name {cluster} --region {region} --query 'cluster.resourcesVpcConfig'"],
      source: EKS_NODES,
    },
    {
      text: 'Check the node network: the VPC CNI (aws-node) daemon set, and its logs on an affected node, for IP allocation or ENI errors. (EKS Auto Mode runs its own pod networking, with no aws-node daemon set to look at.)',
      commands: [
        'kubectl -n kube-system get daemonset aws-node',
        'kubectl -n kube-system logs -l k8s-app=aws-node -c aws-node --tail=50 --field-selector spec.nodeName=<node-name>',
      ],
      source: EKS_VPC_CNI,
    },
    ...pauseAutoRepair,
  ],
  runbook: 'docs/runbooks/nodes-unreachable.md',
};
