/**
 * The incidents and documents the default rules' hints cite, one constant per source. A hint that says how AWS,
 * Karpenter or Gatekeeper behaves cites the page that says so (docs/runbooks/README.md#where-a-hint-applies-and-how-it-cites);
 * every source is listed in docs/rules.md#sources.
 */

export const OPA_POSTMORTEM = 'Jetstack post-mortem of the OPA validating-webhook outage on GKE (2019)';
export const GATEKEEPER_ISSUE = 'Gatekeeper issue: readiness before the webhook serves, no shutdown grace (v3.17.1)';
export const APISERVER_TALK = 'Schimanski & Eads, "Operating kube-apiserver Without Hiccups", KubeCon EU 2019';
export const KMS_PR = 'kubernetes/kubernetes#78540: healthz check for KMS providers';
export const K8S_DOCS = 'Kubernetes docs: Dynamic Admission Control';
export const K8S_METRICS =
  'Kubernetes docs: Kubernetes Metrics Reference, https://kubernetes.io/docs/reference/instrumentation/metrics/';
export const EKS_NODE_REPAIR =
  'Amazon EKS User Guide: Automatically repair nodes in EKS clusters, https://docs.aws.amazon.com/eks/latest/userguide/node-repair.html';
export const EKS_UPDATE_NODEGROUP_CONFIG =
  'EKS API Reference: UpdateNodegroupConfig, https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateNodegroupConfig.html';
export const KARPENTER_SETTINGS =
  'Karpenter docs: Settings, feature gates (FEATURE_GATES), https://karpenter.sh/docs/reference/settings/; karpenter Helm chart values (settings.featureGates.nodeRepair)';
export const ASG_SUSPEND =
  'Amazon EC2 Auto Scaling User Guide: Suspend and resume processes, https://docs.aws.amazon.com/autoscaling/ec2/userguide/as-suspend-resume-processes.html';
export const EKS_DESCRIBE_CLUSTER =
  'EKS API Reference: DescribeCluster and ListUpdates, https://docs.aws.amazon.com/eks/latest/APIReference/API_DescribeCluster.html';
export const EKS_APISERVER_CONFIG =
  'EKS API Reference: UpdateClusterConfig, whose KubeApiServerConfigRequest takes only eventTtl and serviceNodePortRange, https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateClusterConfig.html';
export const EKS_NODEGROUP_VERSION =
  'EKS API Reference: UpdateNodegroupVersion ("You cannot roll back a node group to an earlier Kubernetes version or AMI version"), https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateNodegroupVersion.html';
export const GATEKEEPER_FLAGS =
  'Gatekeeper main.go: --health-addr (default :9090) serves /healthz and /readyz, --enable-tls-healthcheck adds a check of the webhook TLS server to /healthz, https://github.com/open-policy-agent/gatekeeper/blob/master/main.go';
export const OAM_DOCS =
  'CloudWatch cross-account observability, https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch-Unified-Cross-Account.html; OAM API Reference: ListAttachedLinks (SinkIdentifier is required), https://docs.aws.amazon.com/OAM/latest/APIReference/API_ListAttachedLinks.html';
export const EKS_VENDED_METRICS =
  'Amazon EKS User Guide: Monitor cluster data with Amazon CloudWatch (AWS/EKS metrics), https://docs.aws.amazon.com/eks/latest/userguide/cloudwatch.html';
export const K8S_NODES =
  'Kubernetes docs: Nodes, "Node heartbeats" and "Rate limits on eviction", https://kubernetes.io/docs/concepts/architecture/nodes/';
export const EKS_NODES =
  'Amazon EKS User Guide: cluster security group requirements, https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html; troubleshooting nodes that are NotReady, https://docs.aws.amazon.com/eks/latest/userguide/troubleshooting.html';
export const EKS_VPC_CNI =
  'Amazon EKS User Guide: Assign IPs to Pods with the Amazon VPC CNI, https://docs.aws.amazon.com/eks/latest/userguide/managing-vpc-cni.html';
