import type { Rule } from '../rule.ts';
import { controlPlaneInvolvedParams, controlPlaneInvolvedWithinHour } from './control-plane-involved.ts';
import { churnedNodes, churnedShare } from './operands.ts';
import { EKS_NODEGROUP_VERSION } from './sources.ts';

/** `node-churn`: see docs/rules.md for why each number, and its runbook (docs/runbooks/node-churn.md) for what to do. */
export const nodeChurn: Rule = {
  id: 'node-churn',
  title: 'Node replacements are elevated',
  summary:
    'Nodes are being replaced well above the recent baseline while the control plane is healthy: spot interruptions, a bad node image, or consolidation. Worth a look, never a page.',
  severity: 'ticket',
  params: {
    minReplaced: { default: 5, unit: 'nodes', description: 'replacements within 30 minutes' },
    changeRatio: { default: 3, unit: 'x', description: 'rate over 30 minutes against the 6-hour baseline' },
    replacedShare: {
      default: 0.2,
      unit: 'ratio',
      description: 'share of the cluster replaced within 30 minutes: elevated whatever the baseline, or its history',
    },
    ...controlPlaneInvolvedParams,
  },
  when: {
    kind: 'allOf',
    conditions: [
      // Replacements, not scale-ins: a group that shrinks on schedule or on low demand removes nodes on purpose and
      // replaces none, however many it removes at once.
      { kind: 'window', of: churnedNodes, aggregate: 'sum', window: '30m', op: '>=', value: '$minReplaced' },
      {
        // Against the cluster's own baseline once it has an hour of history; a fifth of the cluster in half an hour
        // is elevated for any cluster, so that a wave in the first hour of history (when the baseline cannot be
        // judged yet) still gets its ticket.
        kind: 'anyOf',
        conditions: [
          {
            kind: 'change',
            of: churnedNodes,
            aggregate: 'avg',
            window: '30m',
            baseline: '6h',
            mode: 'ratio',
            op: '>=',
            value: '$changeRatio',
          },
          { kind: 'window', of: churnedShare, aggregate: 'sum', window: '30m', op: '>=', value: '$replacedShare' },
        ],
      },
      // Over the replacements' half hour and the half hour before: the nodes an outage got repaired are that
      // outage's, and its page already named them; once it resolves they must not become a churn ticket of their own.
      { kind: 'noneOf', conditions: controlPlaneInvolvedWithinHour },
    ],
  },
  explains: [],
  holdDown: '1h',
  maintenance: 'mute',
  hints: [
    {
      text: 'What each Auto Scaling group says caused its terminations (spot, rebalancing, failed health checks, a refresh).',
      appliesTo: ['managed-node-groups', 'self-managed-groups'],
      commands: [
        'for asg in {asgs}; do aws autoscaling describe-scaling-activities --auto-scaling-group-name "$asg" --region {region} --max-items 20 --query \'Activities[].[StartTime,StatusCode,Cause]\' --output text; done',
      ],
      source:
        'Amazon EC2 Auto Scaling User Guide: Verify a scaling activity, https://docs.aws.amazon.com/autoscaling/ec2/userguide/as-verify-scaling-activity.html; Amazon EKS User Guide: Managed node groups ("Every managed node is provisioned as part of an Amazon EC2 Auto Scaling group"), https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html',
    },
    {
      text: 'Why Karpenter disrupted nodes (Underutilized, Empty, Drifted, Expired) and whether spot reclaimed them.',
      appliesTo: ['karpenter'],
      commands: [
        'kubectl get events -A --field-selector reason=DisruptionTerminating --sort-by=.lastTimestamp',
        'kubectl get events -A --field-selector reason=SpotInterrupted --sort-by=.lastTimestamp',
      ],
      source: 'Karpenter docs: Disruption, https://karpenter.sh/docs/concepts/disruption/',
    },
    {
      text: 'EC2’s reason for the cluster’s recently terminated instances (kept about an hour): Server.SpotInstanceTermination is a spot reclaim.',
      commands: [
        "aws ec2 describe-instances --region {region} --filters Name=instance-state-name,Values=shutting-down,terminated Name=tag-key,Values=kubernetes.io/cluster/{cluster} --query 'Reservations[].Instances[].[InstanceId,LaunchTime,StateReason.Message]' --output text",
      ],
      source:
        'Amazon EC2 User Guide: Spot Instance interruptions, https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-interruptions.html',
    },
    {
      text: 'A bad AMI cannot be rolled back on a managed node group. If the group has a launch template with a custom AMI, create a launch template version with the previous AMI and move the group to it; otherwise create a node group on the previous release version and drain the bad one.',
      appliesTo: ['managed-node-groups'],
      commands: [
        "aws eks describe-nodegroup --cluster-name {cluster} --region {region} --nodegroup-name <nodegroup> --query 'nodegroup.{release:releaseVersion,launchTemplate:launchTemplate}'",
        'aws ec2 create-launch-template-version --region {region} --launch-template-id <launch-template-id> --source-version <current-version> --launch-template-data \'{"ImageId":"<previous-ami-id>"}\'',
        'aws eks update-nodegroup-version --cluster-name {cluster} --region {region} --nodegroup-name <nodegroup> --launch-template id=<launch-template-id>,version=<new-version>',
      ],
      source: `${EKS_NODEGROUP_VERSION}; EC2 API Reference: CreateLaunchTemplateVersion, https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateLaunchTemplateVersion.html`,
    },
  ],
  runbook: 'docs/runbooks/node-churn.md',
};
