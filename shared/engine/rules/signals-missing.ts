import type { Rule } from '../rule.ts';
import { APISERVER_TALK, AWS_HEALTH, EKS_DESCRIBE_CLUSTER, EKS_VENDED_METRICS, OAM_DOCS } from './sources.ts';

/** `signals-missing`: see docs/rules.md for why each number, and its runbook (docs/runbooks/signals-missing.md) for what to do. */
export const signalsMissing: Rule = {
  id: 'signals-missing',
  title: 'Cluster signals stopped arriving',
  summary:
    'No apiserver datapoint has arrived for this cluster for 10 minutes: either its control plane is down, or monitoring is blind. Both mean nothing else here can page for it.',
  severity: 'page',
  params: {},
  when: { kind: 'absent', of: ['apiserver.requests', 'apiserver.write.p99'], window: '10m' },
  explains: [],
  // Twice the window: data that trickles back in a burst shorter than the window keeps "absent" clear for less than
  // the burst plus the window, so an impairment that goes on never resolves (and pages again) on its bursts.
  holdDown: '20m',
  // A control plane that goes dark during an upgrade is exactly what an upgrade must not hide.
  maintenance: 'notify',
  hints: [
    {
      text: 'Several clusters of one Region dark at once, on one page: their control planes are rarely down together, CloudWatch in that Region is the likelier cause (metrics delayed or not ingested). Check the Region’s CloudWatch on the AWS Health Dashboard (health.aws.amazon.com, and your account’s events); the page resolves when the Region’s data is back.',
      source: AWS_HEALTH,
    },
    {
      text: 'Is the control plane up? Which readiness checks fail (the path is quoted: zsh would take an unquoted ? for a glob).',
      commands: ["kubectl get --raw='/readyz?verbose' --request-timeout=10s"],
      source: APISERVER_TALK,
    },
    {
      text: 'Does EKS say the cluster exists and is ACTIVE? ResourceNotFoundException means it was deleted or renamed.',
      appliesTo: ['eks-control-plane'],
      commands: [
        "aws eks describe-cluster --name {cluster} --region {region} --query 'cluster.{status:status,health:health.issues}'",
      ],
      source: EKS_DESCRIBE_CLUSTER,
    },
    {
      text: 'Is monitoring blind? In the cluster’s account, are AWS/EKS metrics vended at all; in the monitoring account, does it see them through the cross-account link?',
      appliesTo: ['eks-control-plane'],
      commands: [
        "aws cloudwatch list-metrics --region {region} --namespace AWS/EKS --dimensions Name=ClusterName,Value={cluster} --recently-active PT3H --query 'Metrics[].MetricName' --output text",
        "aws cloudwatch list-metrics --region {region} --namespace AWS/EKS --dimensions Name=ClusterName,Value={cluster} --include-linked-accounts --owning-account {account} --query 'Metrics[].MetricName' --output text",
      ],
      source: EKS_VENDED_METRICS,
    },
    {
      text: 'Is the cross-account link still there? In the monitoring account, the source accounts attached to each sink.',
      commands: [
        "for sink in $(aws oam list-sinks --region {region} --query 'Items[].Arn' --output text); do aws oam list-attached-links --region {region} --sink-identifier \"$sink\" --query 'Items[].[Label,LinkArn]' --output text; done",
      ],
      source: OAM_DOCS,
    },
  ],
  runbook: 'docs/runbooks/signals-missing.md',
  // Several clusters of one Region dark together are one cause, likelier CloudWatch there than their control planes:
  // one incident per Region, which resolves when the Region's data is back (AWS's December 2021 us-east-1 event).
  perRegion: { title: 'CloudWatch in {region} may be impaired: cluster signals stopped arriving' },
};
