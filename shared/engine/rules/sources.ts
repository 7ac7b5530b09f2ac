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
export const K8S_NODE_LIFECYCLE =
  'Kubernetes docs: kube-controller-manager command-line reference (--unhealthy-zone-threshold 0.55, --large-cluster-size-threshold 50, --node-eviction-rate 0.1, --secondary-node-eviction-rate 0.01), https://kubernetes.io/docs/reference/command-line-tools-reference/kube-controller-manager/; Kubernetes docs: Nodes, "Rate limits on eviction", https://kubernetes.io/docs/concepts/architecture/nodes/#rate-limits-on-eviction';
export const DATADOG_2023 =
  'Datadog, "2023-03-08 Incident: A Deep Dive into the Platform-level Impact" (an automatic systemd security update flushed the CNI’s routing rules on tens of thousands of nodes in several regions at once), https://www.datadoghq.com/blog/engineering/2023-03-08-deep-dive-into-platform-level-impact/';
export const K8S_AGGREGATION =
  'Kubernetes docs: Configure the Aggregation Layer, https://kubernetes.io/docs/tasks/extend-kubernetes/configure-aggregation-layer/; Kubernetes docs: Versions in CustomResourceDefinitions (webhook conversion), https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definition-versioning/';
export const EKS_CONTROL_PLANE_LOGS =
  'Amazon EKS User Guide: Send control plane logs to CloudWatch Logs (log group /aws/eks/<cluster>/cluster, streams kube-apiserver-* and kube-apiserver-audit-*), https://docs.aws.amazon.com/eks/latest/userguide/control-plane-logs.html; CloudWatch Logs API Reference: StartQuery, https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_StartQuery.html';
export const AWS_HEALTH =
  'AWS Health User Guide: the AWS Health Dashboard and DescribeEvents, https://docs.aws.amazon.com/health/latest/ug/aws-health-dashboard-status.html';
