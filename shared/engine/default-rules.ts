import type { Hint, Rule } from './rule.ts';

/**
 * The default rule set. Ids are a public contract; thresholds are justified in docs/rules.md and tuned on the
 * scenario corpus. Sources named in hints are listed in docs/rules.md#sources; a hint that says how AWS, Karpenter or
 * Gatekeeper behaves cites the page that says so (docs/runbooks/README.md#where-a-hint-applies-and-how-it-cites).
 */

const OPA_POSTMORTEM = 'Jetstack post-mortem of the OPA validating-webhook outage on GKE (2019)';
const GATEKEEPER_ISSUE = 'Gatekeeper issue: readiness before the webhook serves, no shutdown grace (v3.17.1)';
const APISERVER_TALK = 'Schimanski & Eads, "Operating kube-apiserver Without Hiccups", KubeCon EU 2019';
const KMS_PR = 'kubernetes/kubernetes#78540: healthz check for KMS providers';
const K8S_DOCS = 'Kubernetes docs: Dynamic Admission Control';
const K8S_METRICS =
  'Kubernetes docs: Kubernetes Metrics Reference, https://kubernetes.io/docs/reference/instrumentation/metrics/';
const EKS_NODE_REPAIR =
  'Amazon EKS User Guide: Automatically repair nodes in EKS clusters, https://docs.aws.amazon.com/eks/latest/userguide/node-repair.html';
const EKS_UPDATE_NODEGROUP_CONFIG =
  'EKS API Reference: UpdateNodegroupConfig, https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateNodegroupConfig.html';
const KARPENTER_SETTINGS =
  'Karpenter docs: Settings, feature gates (FEATURE_GATES), https://karpenter.sh/docs/reference/settings/; karpenter Helm chart values (settings.featureGates.nodeRepair)';
const ASG_SUSPEND =
  'Amazon EC2 Auto Scaling User Guide: Suspend and resume processes, https://docs.aws.amazon.com/autoscaling/ec2/userguide/as-suspend-resume-processes.html';
const EKS_DESCRIBE_CLUSTER =
  'EKS API Reference: DescribeCluster and ListUpdates, https://docs.aws.amazon.com/eks/latest/APIReference/API_DescribeCluster.html';
const EKS_APISERVER_CONFIG =
  'EKS API Reference: UpdateClusterConfig, whose KubeApiServerConfigRequest takes only eventTtl and serviceNodePortRange, https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateClusterConfig.html';
const EKS_NODEGROUP_VERSION =
  'EKS API Reference: UpdateNodegroupVersion ("You cannot roll back a node group to an earlier Kubernetes version or AMI version"), https://docs.aws.amazon.com/eks/latest/APIReference/API_UpdateNodegroupVersion.html';
const GATEKEEPER_FLAGS =
  'Gatekeeper main.go: --health-addr (default :9090) serves /healthz and /readyz, --enable-tls-healthcheck adds a check of the webhook TLS server to /healthz, https://github.com/open-policy-agent/gatekeeper/blob/master/main.go';
const OAM_DOCS =
  'CloudWatch cross-account observability, https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch-Unified-Cross-Account.html; OAM API Reference: ListAttachedLinks (SinkIdentifier is required), https://docs.aws.amazon.com/OAM/latest/APIReference/API_ListAttachedLinks.html';
const EKS_VENDED_METRICS =
  'Amazon EKS User Guide: Monitor cluster data with Amazon CloudWatch (AWS/EKS metrics), https://docs.aws.amazon.com/eks/latest/userguide/cloudwatch.html';
const K8S_NODES =
  'Kubernetes docs: Nodes, "Node heartbeats" and "Rate limits on eviction", https://kubernetes.io/docs/concepts/architecture/nodes/';
const EKS_NODES =
  'Amazon EKS User Guide: cluster security group requirements, https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html; troubleshooting nodes that are NotReady, https://docs.aws.amazon.com/eks/latest/userguide/troubleshooting.html';
const EKS_VPC_CNI =
  'Amazon EKS User Guide: Assign IPs to Pods with the Amazon VPC CNI, https://docs.aws.amazon.com/eks/latest/userguide/managing-vpc-cni.html';

const webhookFailureShare = { ratio: ['webhook.failures', 'webhook.requests'], minDenominator: 10 } as const;
const errorShare = { ratio: ['apiserver.5xx', 'apiserver.requests'], minDenominator: 50 } as const;
/** 5xx and APF 429s together: load the apiserver failed to serve or chose to shed. */
const shedShare = {
  ratio: [{ sum: ['apiserver.5xx', 'apiserver.429'] }, 'apiserver.requests'],
  minDenominator: 50,
} as const;
/**
 * Rejections among webhook calls: policy denials and, under `failurePolicy: Fail`, calling errors (EKS publishes one
 * `apiserver_admission_webhook_rejection_count` for both).
 */
const rejectionShare = { ratio: ['webhook.rejections', 'webhook.requests'], minDenominator: 10 } as const;
/**
 * 5xx per rejected (or failed) webhook call. A call that fails closed answers 500 (`apierrors.NewInternalError` in the
 * apiserver's webhook dispatchers), so this is about 1 when a webhook fails closed; a denial answers 4xx, so policy
 * denials keep it near 0.
 */
const errorsPerRejection = { ratio: ['apiserver.5xx', 'webhook.rejections'], minDenominator: 10 } as const;
const errorsPerFailure = { ratio: ['apiserver.5xx', 'webhook.failures'], minDenominator: 10 } as const;
const rejectionsPerRequest = { ratio: ['webhook.rejections', 'apiserver.requests'], minDenominator: 50 } as const;
/** Write p99 net of the webhook p99: the apiserver's own share, as the upstream request SLI leaves webhook time out. */
const netWriteP99 = { difference: ['apiserver.write.p99', 'webhook.p99'] } as const;
const notReadyShare = { ratio: ['nodes.notready', 'nodes.total'], minDenominator: 1 } as const;
/**
 * Replacements that could be repairs: every termination but those the events name as spot interruptions (or
 * rebalances) and scale-ins. A cluster without those signals subtracts nothing, as before they existed.
 */
const possibleRepairs = { difference: ['nodes.replaced', { sum: ['nodes.interrupted', 'nodes.scaledin'] }] } as const;
const repairedShare = { ratio: [possibleRepairs, 'nodes.total'], minDenominator: 1 } as const;

/**
 * Node auto-repair replaces nodes whose kubelets cannot report, which is every node while the apiserver is down: pause
 * it until the control plane is healthy, each repairer its own way. Restoring is in node-repair-storm.md.
 */
const pauseAutoRepair: readonly Hint[] = [
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

/**
 * "The control plane is involved": the parameters and the conditions two node rules use to leave a cluster whose
 * apiserver is slow or failing to the rules that page on it.
 */
const controlPlaneInvolvedParams = {
  writeP99Seconds: {
    default: 1,
    unit: 'seconds',
    description: 'write p99 that would mean the control plane is involved',
  },
  errorRatio: {
    default: 0.05,
    unit: 'ratio',
    description: '5xx share that would mean the control plane is involved',
  },
} as const;
const controlPlaneInvolved = [
  { kind: 'sustained', of: 'apiserver.write.p99', op: '>=', value: '$writeP99Seconds', m: 3, n: 5 },
  { kind: 'sustained', of: errorShare, op: '>=', value: '$errorRatio', m: 3, n: 5 },
] as const;

export const DEFAULT_RULES: readonly Rule[] = [
  {
    id: 'webhook-blackhole',
    title: 'Admission webhook is black-holing API writes',
    summary:
      'Admission webhook calls time out or fail, and the API requests that go through them stall or are refused: calls that hang hold writes until the webhook timeout, calls that fail closed (connection refused, no endpoints) answer 500 at once. Anything that writes through the webhook, including control-plane start-up hooks that update kube-system and kubelets reporting status, can fail.',
    severity: 'page',
    params: {
      webhookP99Seconds: {
        default: 2.5,
        unit: 'seconds',
        description: 'webhook p99 that means calls hang until they time out',
      },
      webhookFailureRatio: {
        default: 0.2,
        unit: 'ratio',
        description: 'share of webhook calls that error or time out',
      },
      rejectionRatio: {
        default: 0.2,
        unit: 'ratio',
        description: 'share of webhook calls rejected, when the rejections come with 5xx (calling errors)',
      },
      closedShare: {
        default: 0.5,
        unit: 'ratio',
        description: '5xx per rejected or failed webhook call that means the webhook fails closed',
      },
      writeP99Seconds: { default: 1, unit: 'seconds', description: 'write p99 that counts as a stall' },
      errorRatio: { default: 0.05, unit: 'ratio', description: 'share of apiserver requests answered 5xx' },
    },
    // Three ways a webhook takes writes down, each with the signals a cluster may have (docs/rules.md, "How each
    // failure shows"): calls hang (webhook p99 at its timeout), calls fail where failures are scraped, and calls fail
    // closed on a stock EKS cluster (rejections that answer 500).
    when: {
      kind: 'anyOf',
      conditions: [
        {
          kind: 'allOf',
          conditions: [
            { kind: 'sustained', of: 'webhook.p99', op: '>=', value: '$webhookP99Seconds', m: 2, n: 3 },
            {
              kind: 'anyOf',
              conditions: [
                { kind: 'sustained', of: 'apiserver.write.p99', op: '>=', value: '$writeP99Seconds', m: 2, n: 3 },
                { kind: 'sustained', of: errorShare, op: '>=', value: '$errorRatio', m: 2, n: 3 },
              ],
            },
          ],
        },
        {
          kind: 'allOf',
          conditions: [
            { kind: 'sustained', of: webhookFailureShare, op: '>=', value: '$webhookFailureRatio', m: 2, n: 3 },
            {
              kind: 'anyOf',
              conditions: [
                { kind: 'sustained', of: 'apiserver.write.p99', op: '>=', value: '$writeP99Seconds', m: 2, n: 3 },
                { kind: 'sustained', of: errorShare, op: '>=', value: '$errorRatio', m: 2, n: 3 },
                { kind: 'sustained', of: errorsPerFailure, op: '>=', value: '$closedShare', m: 2, n: 3 },
              ],
            },
          ],
        },
        {
          kind: 'allOf',
          conditions: [
            {
              // Rejections among webhook calls; on a cluster that does not report its webhook calls, among all
              // requests, where only a webhook that sees much of the traffic can reach the error share.
              kind: 'anyOf',
              conditions: [
                { kind: 'sustained', of: rejectionShare, op: '>=', value: '$rejectionRatio', m: 2, n: 3 },
                { kind: 'sustained', of: rejectionsPerRequest, op: '>=', value: '$errorRatio', m: 2, n: 3 },
              ],
            },
            { kind: 'sustained', of: errorsPerRejection, op: '>=', value: '$closedShare', m: 2, n: 3 },
          ],
        },
      ],
    },
    explains: [
      'control-plane-degraded',
      'node-repair-storm',
      'nodes-unreachable',
      'webhook-availability-gaps',
      'webhook-failing-open',
      'webhook-latency-tax',
      'apiserver-restart-errors',
    ],
    holdDown: '15m',
    // The OPA outage happened during a planned master upgrade: muting this rule in maintenance would hide it.
    maintenance: 'notify',
    hints: [
      {
        text: 'Find the webhook: list every webhook with its backend, failure policy and timeout, count calls that failed by webhook name (error_type="calling_webhook_error" is a timeout or an unreachable backend), then look at the backend’s endpoints and pods.',
        commands: [
          'kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations -o jsonpath=\'{range .items[*]}{.kind}/{.metadata.name}{"\\n"}{range .webhooks[*]}  {.name} svc={.clientConfig.service.namespace}/{.clientConfig.service.name} failurePolicy={.failurePolicy} timeout={.timeoutSeconds}s{"\\n"}{end}{end}\'',
          "kubectl get --raw /metrics | grep -E '^apiserver_admission_webhook_(rejection_count|fail_open_count)'",
          'kubectl -n <webhook-namespace> get endpoints,pods -o wide',
        ],
        source: `${OPA_POSTMORTEM}; ${K8S_METRICS}`,
      },
      {
        text: 'Emergency: save the failing configuration, then delete it (or set failurePolicy: Ignore). The apiserver never sends webhook configurations to webhooks, so the broken webhook cannot block the delete; retry while the apiserver is flaky.',
        commands: [
          'kubectl get validatingwebhookconfiguration <configuration> -o yaml > webhook-configuration.backup.yaml',
          'until kubectl delete validatingwebhookconfiguration <configuration> --ignore-not-found --request-timeout=15s; do sleep 5; done',
        ],
        source: `${OPA_POSTMORTEM}; ${K8S_DOCS}`,
      },
      ...pauseAutoRepair,
      {
        text: 'Lasting fix: a namespaceSelector that excludes kube-system and the webhook’s own namespace, and rules for only the resources the policy needs (the post-mortem narrowed OPA to Ingress and Service).',
        source: OPA_POSTMORTEM,
      },
      {
        text: 'Lasting fix: a short `timeoutSeconds` (a few seconds), liveness and readiness probes that exercise the TLS serving path, and two or more replicas with a PodDisruptionBudget.',
        source: K8S_DOCS,
      },
    ],
    runbook: 'docs/runbooks/webhook-blackhole.md',
  },
  {
    id: 'control-plane-degraded',
    title: 'Kubernetes control plane is degraded',
    summary:
      'The apiserver itself is slow (write latency net of admission webhook time), or fails or sheds (5xx, 429) a large share of requests, and no admission webhook explains it: look at etcd, API Priority and Fairness and clients overloading the apiserver, and for 5xx with healthy latency at the KMS plugin and aggregated APIs.',
    severity: 'page',
    params: {
      writeP99Seconds: {
        default: 1,
        unit: 'seconds',
        description: 'write p99 net of webhook p99 that counts as degraded when it lasts',
      },
      elevatedWriteP99Seconds: {
        default: 2,
        unit: 'seconds',
        description: 'write p99 net of webhook p99 that pages after three minutes of four',
      },
      severeWriteP99Seconds: {
        default: 4,
        unit: 'seconds',
        description: 'write p99 net of webhook p99 that pages after two minutes of three',
      },
      errorRatio: { default: 0.05, unit: 'ratio', description: 'share of apiserver requests answered 5xx or 429' },
      severeErrorRatio: {
        default: 0.25,
        unit: 'ratio',
        description: 'share of requests answered 5xx or 429 that pages after two minutes',
      },
      webhookP99Seconds: {
        default: 2.5,
        unit: 'seconds',
        description: 'webhook p99 that would make a webhook the cause',
      },
      webhookFailureRatio: {
        default: 0.2,
        unit: 'ratio',
        description: 'webhook failure share that would make a webhook the cause',
      },
      rejectionRatio: {
        default: 0.2,
        unit: 'ratio',
        description: 'share of webhook calls rejected with 5xx that would make a webhook the cause',
      },
      closedShare: {
        default: 0.5,
        unit: 'ratio',
        description: '5xx per rejected webhook call that means a webhook fails closed',
      },
    },
    // Latency is judged net of webhook time, as the upstream request SLI (apiserver_request_sli_duration_seconds)
    // excludes it: a slow webhook taxes every write, but it is not the control plane.
    when: {
      kind: 'allOf',
      conditions: [
        {
          kind: 'anyOf',
          conditions: [
            { kind: 'sustained', of: netWriteP99, op: '>=', value: '$severeWriteP99Seconds', m: 2, n: 3 },
            { kind: 'sustained', of: netWriteP99, op: '>=', value: '$elevatedWriteP99Seconds', m: 3, n: 4 },
            { kind: 'sustained', of: netWriteP99, op: '>=', value: '$writeP99Seconds', m: 10, n: 12 },
            { kind: 'sustained', of: shedShare, op: '>=', value: '$severeErrorRatio', m: 2, n: 3 },
            { kind: 'sustained', of: shedShare, op: '>=', value: '$errorRatio', m: 3, n: 4 },
          ],
        },
        {
          kind: 'noneOf',
          conditions: [
            {
              kind: 'window',
              of: 'webhook.p99',
              aggregate: 'max',
              window: '5m',
              op: '>=',
              value: '$webhookP99Seconds',
            },
            {
              kind: 'window',
              of: webhookFailureShare,
              aggregate: 'max',
              window: '5m',
              op: '>=',
              value: '$webhookFailureRatio',
            },
            {
              kind: 'allOf',
              conditions: [
                {
                  kind: 'anyOf',
                  conditions: [
                    {
                      kind: 'window',
                      of: rejectionShare,
                      aggregate: 'max',
                      window: '5m',
                      op: '>=',
                      value: '$rejectionRatio',
                    },
                    {
                      kind: 'window',
                      of: rejectionsPerRequest,
                      aggregate: 'max',
                      window: '5m',
                      op: '>=',
                      value: '$errorRatio',
                    },
                  ],
                },
                {
                  kind: 'window',
                  of: errorsPerRejection,
                  aggregate: 'max',
                  window: '5m',
                  op: '>=',
                  value: '$closedShare',
                },
              ],
            },
          ],
        },
      ],
    },
    explains: ['node-repair-storm', 'nodes-unreachable', 'apiserver-restart-errors'],
    holdDown: '15m',
    // An upgrade replaces apiservers one at a time, and each restart costs minutes of errors or slow writes at most
    // (KubeCon talk): those stay muted. Half of all requests failing or shed for ten minutes, writes at the severe p99
    // for ten, or a degraded control plane that has not cleared for 30 minutes is an outage the upgrade does not
    // explain, and it pages inside the window too (docs/rules.md, Maintenance).
    maintenance: {
      notifyAfter: '30m',
      notifyWhen: {
        kind: 'anyOf',
        conditions: [
          { kind: 'sustained', of: shedShare, op: '>=', value: 0.5, m: 10, n: 10 },
          { kind: 'sustained', of: netWriteP99, op: '>=', value: '$severeWriteP99Seconds', m: 10, n: 10 },
        ],
      },
    },
    hints: [
      {
        text: 'Check etcd first: request latency and database size in the apiserver metrics.',
        commands: [
          "kubectl get --raw /metrics | grep -E '^(etcd_request_duration_seconds_(sum|count)|apiserver_storage_size_bytes)'",
        ],
        source: `${APISERVER_TALK}; ${K8S_METRICS}`,
      },
      {
        text: 'Check API Priority and Fairness: the rejected requests by flow schema show who is shed; find the client in the audit log and throttle it.',
        commands: ["kubectl get --raw /metrics | grep '^apiserver_flowcontrol_rejected_requests_total'"],
        source: `${APISERVER_TALK}; ${K8S_METRICS}`,
      },
      {
        text: 'Is AWS changing the control plane right now? The cluster’s status and health, and its recent updates.',
        appliesTo: ['eks-control-plane'],
        commands: [
          "aws eks describe-cluster --name {cluster} --region {region} --query 'cluster.{status:status,version:version,health:health.issues}'",
          'aws eks list-updates --name {cluster} --region {region}',
        ],
        source: EKS_DESCRIBE_CLUSTER,
      },
      ...pauseAutoRepair,
    ],
    runbook: 'docs/runbooks/control-plane-degraded.md',
  },
  {
    id: 'node-repair-storm',
    title: 'Node auto-repair is replacing nodes in a storm',
    summary:
      'Many nodes are being replaced in a short window, relative to the cluster size, while nodes fail to report or the control plane struggles. When the control plane is degraded, auto-repair is reacting to kubelets that cannot report, not to broken nodes.',
    severity: 'page',
    params: {
      replacedShare: {
        default: 0.2,
        unit: 'ratio',
        description: 'share of the cluster replaced within 30 minutes, spot interruptions and scale-ins left out',
      },
      minReplaced: {
        default: 3,
        unit: 'nodes',
        description: 'fewest replacements that count, for small clusters (spot interruptions and scale-ins left out)',
      },
      notReadyShare: { default: 0.3, unit: 'ratio', description: 'share of nodes NotReady at once' },
      writeP99Seconds: {
        default: 1,
        unit: 'seconds',
        description: 'write p99 that counts as a struggling control plane',
      },
      errorRatio: { default: 0.02, unit: 'ratio', description: '5xx share that counts as a struggling control plane' },
    },
    when: {
      kind: 'allOf',
      conditions: [
        { kind: 'window', of: repairedShare, aggregate: 'sum', window: '30m', op: '>=', value: '$replacedShare' },
        { kind: 'window', of: possibleRepairs, aggregate: 'sum', window: '30m', op: '>=', value: '$minReplaced' },
        {
          kind: 'anyOf',
          conditions: [
            { kind: 'sustained', of: notReadyShare, op: '>=', value: '$notReadyShare', m: 3, n: 5 },
            { kind: 'sustained', of: 'apiserver.write.p99', op: '>=', value: '$writeP99Seconds', m: 2, n: 5 },
            { kind: 'sustained', of: errorShare, op: '>=', value: '$errorRatio', m: 2, n: 5 },
          ],
        },
      ],
    },
    explains: ['node-churn'],
    holdDown: '15m',
    // A rolling node upgrade replaces many nodes on purpose; a storm while the control plane is down is not that.
    maintenance: { notifyWhenFiring: ['control-plane-degraded', 'webhook-blackhole'] },
    hints: [
      ...pauseAutoRepair,
      {
        text: 'Fix the control plane first: nodes that cannot report status to a struggling apiserver look dead to auto-repair, and replacing them adds load without fixing anything.',
        source: OPA_POSTMORTEM,
      },
    ],
    runbook: 'docs/runbooks/node-repair-storm.md',
  },
  {
    id: 'webhook-latency-tax',
    title: 'Admission webhook latency dominates API write latency',
    summary:
      'For hours, admission webhook latency has made up a large share of apiserver write latency. Every CREATE and UPDATE pays it, and a webhook this slow is one bad day away from black-holing writes.',
    severity: 'ticket',
    params: {
      shareOfWrite: { default: 0.4, unit: 'ratio', description: 'webhook p99 as a share of write p99' },
      minWebhookP99Seconds: {
        default: 0.1,
        unit: 'seconds',
        description: 'webhook p99 below which the tax is ignored',
      },
    },
    // "For hours": most samples of the last two hours, so that a short outage's timeouts cannot pass for a tax.
    when: {
      kind: 'allOf',
      conditions: [
        {
          kind: 'sustained',
          of: { ratio: ['webhook.p99', 'apiserver.write.p99'] },
          op: '>=',
          value: '$shareOfWrite',
          m: 100,
          n: 120,
        },
        { kind: 'sustained', of: 'webhook.p99', op: '>=', value: '$minWebhookP99Seconds', m: 100, n: 120 },
      ],
    },
    explains: [],
    // A tax that comes back within a few hours (a quiet spell, a brief fix) is the same tax: one ticket, not two.
    holdDown: '3h',
    maintenance: 'mute',
    hints: [
      {
        text: 'This is the warning the OPA outage gave for days: write latency rose on every CREATE and UPDATE once the webhook was deployed. Find the slow webhook by name in `apiserver_admission_webhook_admission_duration_seconds`.',
        source: OPA_POSTMORTEM,
      },
      {
        text: 'Scope it down: namespaceSelector, objectSelector or matchConditions, and rules for only the resources and operations the policy checks; set a short `timeoutSeconds`.',
        source: K8S_DOCS,
      },
    ],
    runbook: 'docs/runbooks/webhook-latency-tax.md',
  },
  {
    id: 'webhook-availability-gaps',
    title: 'Admission webhook fails in short recurring bursts',
    summary:
      'The webhook fails in short bursts again and again, as at every rollout of its deployment. Under fail-open each burst silently skips policy on a share of requests; under fail-closed it rejects them.',
    severity: 'ticket',
    params: {
      failureRatio: { default: 0.01, unit: 'ratio', description: 'webhook failure share that makes a burst' },
      bursts: { default: 3, unit: 'bursts', description: 'separate bursts within 6 hours' },
    },
    when: {
      kind: 'window',
      of: webhookFailureShare,
      aggregate: 'episodes',
      window: '6h',
      where: { op: '>=', value: '$failureRatio' },
      op: '>=',
      value: '$bursts',
    },
    explains: [],
    holdDown: '1h',
    maintenance: 'mute',
    hints: [
      {
        text: 'Make readiness mean "can serve". Gatekeeper serves /healthz and /readyz on its health port (--health-addr, :9090 by default), not on the webhook port: run the controller manager with --enable-tls-healthcheck=true, which makes /healthz check the webhook’s TLS server, and point the readiness probe at /healthz on the health port. A probe on the webhook port never gets ready, which under failurePolicy: Fail is a full outage.',
        source: `${GATEKEEPER_ISSUE}; ${GATEKEEPER_FLAGS}`,
      },
      {
        text: 'Give shutdown a grace period: a `preStop` sleep of about 10 s so endpoints are removed before the server stops listening.',
        source: GATEKEEPER_ISSUE,
      },
      {
        text: 'Under failurePolicy Ignore these bursts skip policy silently; the Gatekeeper reporter measured about 2% of pods escaping mutation during node-pool rollovers.',
        source: GATEKEEPER_ISSUE,
      },
    ],
    runbook: 'docs/runbooks/webhook-availability-gaps.md',
  },
  {
    id: 'apiserver-restart-errors',
    title: 'kube-apiserver drops requests when it restarts',
    summary:
      'Short bursts of 5xx or 429 answers recur with healthy latency in between, the signature of apiservers restarting without graceful termination.',
    severity: 'ticket',
    params: {
      errorRatio: { default: 0.02, unit: 'ratio', description: 'share of 5xx plus 429 that makes a burst' },
      bursts: { default: 2, unit: 'bursts', description: 'separate bursts within an hour' },
      maxErrorMinutes: {
        default: 10,
        unit: 'minutes',
        description: 'minutes of the hour at or above the burst share: more is an outage, not restarts',
      },
      writeP99Seconds: {
        default: 1,
        unit: 'seconds',
        description: 'average write p99 below which latency counts as healthy',
      },
    },
    when: {
      kind: 'allOf',
      conditions: [
        {
          kind: 'window',
          of: shedShare,
          aggregate: 'episodes',
          window: '1h',
          where: { op: '>=', value: '$errorRatio' },
          op: '>=',
          value: '$bursts',
        },
        // A restart drops requests for a minute or two; an error share that hovers around the line for most of the
        // hour is an outage (and another rule's), whose crossings must not read as bursts.
        {
          kind: 'window',
          of: shedShare,
          aggregate: 'count',
          window: '1h',
          where: { op: '>=', value: '$errorRatio' },
          op: '<=',
          value: '$maxErrorMinutes',
        },
        {
          kind: 'window',
          of: 'apiserver.write.p99',
          aggregate: 'avg',
          window: '2h',
          op: '<',
          value: '$writeP99Seconds',
        },
      ],
    },
    explains: [],
    holdDown: '30m',
    maintenance: 'mute',
    hints: [
      {
        text: 'On EKS, AWS runs the apiservers and the load balancer in front of them, so how they shut down is not yours to change (the EKS API configures only eventTtl and serviceNodePortRange of the apiserver). Check whether the bursts match an EKS update; make your clients retry with backoff and honour Retry-After; open a support case with the burst times if they recur without an update.',
        appliesTo: ['eks-control-plane'],
        commands: ['aws eks list-updates --name {cluster} --region {region}'],
        source: `${EKS_APISERVER_CONFIG}; ${EKS_DESCRIBE_CLUSTER}`,
      },
      {
        text: 'Terminate gracefully: on SIGTERM fail /readyz at once, keep serving through a minimum shutdown delay while load balancers and the endpoints controller stop sending traffic, then drain (--shutdown-delay-duration, --shutdown-send-retry-after).',
        appliesTo: ['self-managed-control-plane'],
        source: `${APISERVER_TALK}; Kubernetes docs: kube-apiserver command-line reference`,
      },
      {
        text: 'Point load-balancer health checks at /readyz, not /healthz: /healthz failing restarts the pod, /readyz failing only removes the endpoint.',
        appliesTo: ['self-managed-control-plane'],
        source: APISERVER_TALK,
      },
      {
        text: 'If the errors follow restarts and hit Secrets, check the KMS plugin: an apiserver that starts before its KMS plugin is healthy fails Secret requests; the kms-provider healthz check keeps it not-ready until the plugin answers.',
        source: KMS_PR,
      },
    ],
    runbook: 'docs/runbooks/apiserver-restart-errors.md',
  },
  {
    id: 'node-churn',
    title: 'Node replacements are elevated',
    summary:
      'Nodes are being replaced well above the recent baseline while the control plane is healthy: spot interruptions, a bad node image, or consolidation. Worth a look, never a page.',
    severity: 'ticket',
    params: {
      minReplaced: { default: 5, unit: 'nodes', description: 'replacements within 30 minutes' },
      changeRatio: { default: 3, unit: 'x', description: 'rate over 30 minutes against the 6-hour baseline' },
      ...controlPlaneInvolvedParams,
    },
    when: {
      kind: 'allOf',
      conditions: [
        { kind: 'window', of: 'nodes.replaced', aggregate: 'sum', window: '30m', op: '>=', value: '$minReplaced' },
        {
          kind: 'change',
          of: 'nodes.replaced',
          aggregate: 'avg',
          window: '30m',
          baseline: '6h',
          mode: 'ratio',
          op: '>=',
          value: '$changeRatio',
        },
        { kind: 'noneOf', conditions: controlPlaneInvolved },
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
  },
  {
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
      minReplaced: {
        default: 3,
        unit: 'nodes',
        description: 'replacements within 30 minutes that make it node-repair-storm’s, not this rule’s',
      },
      ...controlPlaneInvolvedParams,
    },
    // Ten of twelve minutes: past the five minutes after which NotReady nodes' pods are evicted, and longer than the
    // NotReady blips of a rolling upgrade or a spot drain.
    when: {
      kind: 'allOf',
      conditions: [
        { kind: 'sustained', of: notReadyShare, op: '>=', value: '$notReadyShare', m: 10, n: 12 },
        { kind: 'sustained', of: 'nodes.notready', op: '>=', value: '$minNotReady', m: 10, n: 12 },
        {
          // Nothing visibly replaces the nodes, and the apiserver is healthy; on a cluster without a replacement
          // signal the rule still runs, on what it has.
          kind: 'noneOf',
          conditions: [
            { kind: 'window', of: 'nodes.replaced', aggregate: 'sum', window: '30m', op: '>=', value: '$minReplaced' },
            ...controlPlaneInvolved,
          ],
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
  },
  {
    id: 'webhook-failing-open',
    title: 'Admission webhook fails open: its policy is not enforced',
    summary:
      'Most calls to an admission webhook with failurePolicy Ignore have been failing for many minutes. API requests still succeed, without the webhook: nothing it validates is checked and nothing it mutates is changed. Only visible with webhook.failures (a scraped custom metric).',
    severity: 'ticket',
    params: {
      failureRatio: { default: 0.2, unit: 'ratio', description: 'share of webhook calls that fail' },
      closedShare: {
        default: 0.5,
        unit: 'ratio',
        description: '5xx per failed call above which the webhook fails closed instead (webhook-blackhole)',
      },
      webhookP99Seconds: {
        default: 2.5,
        unit: 'seconds',
        description: 'webhook p99 at which calls hang and writes stall (webhook-blackhole)',
      },
      writeP99Seconds: { default: 1, unit: 'seconds', description: 'write p99 that counts as a stall' },
    },
    // The quiet case: calls fail fast and the apiserver lets requests through. Failures that hang stall writes, and
    // failures that answer 5xx refuse them: both are webhook-blackhole's.
    when: {
      kind: 'allOf',
      conditions: [
        { kind: 'sustained', of: webhookFailureShare, op: '>=', value: '$failureRatio', m: 10, n: 15 },
        { kind: 'sustained', of: errorsPerFailure, op: '<', value: '$closedShare', m: 10, n: 15 },
        {
          kind: 'noneOf',
          conditions: [
            { kind: 'sustained', of: 'webhook.p99', op: '>=', value: '$webhookP99Seconds', m: 3, n: 5 },
            { kind: 'sustained', of: 'apiserver.write.p99', op: '>=', value: '$writeP99Seconds', m: 3, n: 5 },
          ],
        },
      ],
    },
    explains: [],
    holdDown: '30m',
    maintenance: 'mute',
    hints: [
      {
        text: 'Find the webhook whose calls fail open: the apiserver counts them by webhook name; then check that webhook’s backend endpoints and pods.',
        commands: [
          "kubectl get --raw /metrics | grep -E '^apiserver_admission_webhook_fail_open_count'",
          'kubectl -n <webhook-namespace> get endpoints,pods -o wide',
        ],
        source: K8S_METRICS,
      },
      {
        text: 'Under failurePolicy Ignore every failed call skips the policy silently; the Gatekeeper reporter measured about 2% of pods escaping mutation during a few seconds of failures per rollout.',
        source: GATEKEEPER_ISSUE,
      },
    ],
    runbook: 'docs/runbooks/webhook-failing-open.md',
  },
  {
    id: 'signals-missing',
    title: 'Cluster signals stopped arriving',
    summary:
      'No apiserver datapoint has arrived for this cluster for 10 minutes: either its control plane is down, or monitoring is blind. Both mean nothing else here can page for it.',
    severity: 'page',
    params: {},
    when: { kind: 'absent', of: ['apiserver.requests', 'apiserver.write.p99'], window: '10m' },
    explains: [],
    holdDown: '5m',
    // A control plane that goes dark during an upgrade is exactly what an upgrade must not hide.
    maintenance: 'notify',
    hints: [
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
  },
];
