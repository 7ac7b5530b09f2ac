import type { Hint } from '../rule.ts';
import { ASG_SUSPEND, EKS_NODE_REPAIR, EKS_UPDATE_NODEGROUP_CONFIG, KARPENTER_SETTINGS } from './sources.ts';

/**
 * Node auto-repair replaces nodes whose kubelets cannot report, which is every node while the apiserver is down: pause
 * it until the control plane is healthy, each repairer its own way. Restoring is in node-repair-storm.md.
 */
export const pauseAutoRepair: readonly Hint[] = [
  {
    text: 'Pause node auto repair on every managed node group until the control plane is healthy, saving each group’s repair configuration to node-repair-<group>.json so it can be restored as it was. Repair stops by itself only in a group of more than five nodes with more than 20% unhealthy, unless your own thresholds say otherwise; retry a group that has an update in progress.',
    appliesTo: ['managed-node-groups'],
    commands: [
      'for ng in $(aws eks list-nodegroups --cluster-name {cluster} --region {region} --query \'nodegroups[]\' --output text); do aws eks describe-nodegroup --cluster-name {cluster} --region {region} --nodegroup-name "$ng" --query \'nodegroup.nodeRepairConfig\' --output json > "node-repair-$ng.json" && aws eks update-nodegroup-config --cluster-name {cluster} --region {region} --nodegroup-name "$ng" --node-repair-config enabled=false; done',
    ],
    source: `${EKS_NODE_REPAIR}; ${EKS_UPDATE_NODEGROUP_CONFIG}`,
  },
  {
    text: 'Turn Karpenter’s NodeRepair feature gate off until the control plane is healthy. The gate is in the controller’s FEATURE_GATES environment variable (or its --feature-gates flag): these commands find Karpenter’s namespace, show the variable, then flip only NodeRepair=true to NodeRepair=false. Set the Helm value settings.featureGates.nodeRepair=false too, or the next helm upgrade turns repair back on. Karpenter stops repairing by itself only when more than 20% of a NodePool is unhealthy.',
    appliesTo: ['karpenter'],
    commands: [
      "KNS=$(kubectl get deployment -A -l app.kubernetes.io/name=karpenter -o jsonpath='{.items[0].metadata.namespace}')",
      'kubectl -n "$KNS" get deployment karpenter -o jsonpath=\'{.spec.template.spec.containers[?(@.name=="controller")].env[?(@.name=="FEATURE_GATES")].value}\'',
      'kubectl -n "$KNS" set env deployment/karpenter -c controller FEATURE_GATES="$(kubectl -n "$KNS" get deployment karpenter -o jsonpath=\'{.spec.template.spec.containers[?(@.name=="controller")].env[?(@.name=="FEATURE_GATES")].value}\' | sed \'s/NodeRepair=true/NodeRepair=false/\')"',
    ],
    source: `${KARPENTER_SETTINGS}; ${EKS_NODE_REPAIR}`,
  },
  {
    text: 'EKS Auto Mode’s node repair cannot be turned off or configured: it stops by itself only when more than 20% of the nodes in a NodePool are unhealthy. Fix the control plane first; check that the cluster runs Auto Mode.',
    appliesTo: ['auto-mode'],
    commands: ["aws eks describe-cluster --name {cluster} --region {region} --query 'cluster.computeConfig'"],
    source: EKS_NODE_REPAIR,
  },
  {
    text: 'Stop the Auto Scaling groups of self-managed nodes from replacing instances that health checks call unhealthy, until the control plane is healthy; resume the ReplaceUnhealthy process afterwards.',
    appliesTo: ['self-managed-groups'],
    commands: [
      'for asg in {selfManagedAsgs}; do aws autoscaling suspend-processes --auto-scaling-group-name "$asg" --region {region} --scaling-processes ReplaceUnhealthy; done',
    ],
    source: ASG_SUSPEND,
  },
];
