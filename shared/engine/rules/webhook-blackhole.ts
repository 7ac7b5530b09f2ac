import type { Rule } from '../rule.ts';
import {
  errorShare,
  errorsPerFailure,
  errorsPerRejection,
  rejectionShare,
  rejectionsPerRequest,
  webhookFailureShare,
} from './operands.ts';
import { pauseAutoRepair } from './pause-auto-repair.ts';
import { K8S_DOCS, K8S_METRICS, OPA_POSTMORTEM } from './sources.ts';

/**
 * The rise of the 5xx share over the last two minutes against the hour before, per rise of the rejection share: about
 * 1 when calls fail closed. Shares of all requests and averages, so that a busy cluster's 5xx floor and its morning
 * ramp cancel out; unknown until the rejection share has at least doubled.
 */
const errorsPerRejectionRise = (op: '>=' | '<=', value: `$${string}`) =>
  ({
    kind: 'change',
    of: errorShare,
    per: rejectionsPerRequest,
    aggregate: 'avg',
    window: '2m',
    baseline: '1h',
    mode: 'delta',
    op,
    value,
  }) as const;

/** `webhook-blackhole`: see docs/rules.md for why each number, and its runbook (docs/runbooks/webhook-blackhole.md) for what to do. */
export const webhookBlackhole: Rule = {
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
    minRejections: {
      default: 10,
      unit: 'rejections',
      description: 'rejections a minute, fewest that count as a jump (the tripwire arms from as many)',
    },
    rejectionJump: {
      default: 5,
      unit: 'x',
      description: 'fewest rejections of the last 4 minutes against the fewest of any minute of the 58 before',
    },
    minRejectionHold: {
      default: 0.9,
      unit: 'ratio',
      description:
        'newest minute’s rejection share against the two before, at the bounds their counts allow, below which the rejections are falling away (a blip ending), not a webhook that stays down',
    },
    maxErrorsPerRejection: {
      default: 2,
      unit: 'x',
      description:
        'rise of the 5xx share per rise of the rejection share above which the 5xx are not the rejections: the control plane failing on its own',
    },
  },
  retiredParams: {
    errorJump:
      'the 5xx are no longer judged against twice their floor but by how much their share rose per rise of the rejection share; remove the override, and set maxErrorsPerRejection (default 2) only if the 5xx of a webhook failing closed outgrow its rejections',
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
              {
                // A narrow webhook failing closed loses every call it sees, minute after minute; a rollout of a
                // webhook whose pods are ready before they serve fails a share of its calls for two or three minutes
                // and recovers, often more of them than a narrow webhook's whole traffic. Only how long it lasts
                // tells the two apart: the jump holds in each of four minutes.
                kind: 'allOf',
                conditions: [
                  { kind: 'sustained', of: 'webhook.rejections', op: '>=', value: '$minRejections', m: 4, n: 4 },
                  {
                    kind: 'change',
                    of: 'webhook.rejections',
                    aggregate: 'min',
                    window: '4m',
                    // The rest of the hour the 5xx rise reads: the minute read stays 62 samples.
                    baseline: '58m',
                    mode: 'ratio',
                    op: '>=',
                    value: '$rejectionJump',
                  },
                  // A webhook that has lost its backend stays down; a blip of three minutes that straddles four
                  // samples ends on a part of a minute, its rejection share well below the two minutes before.
                  {
                    kind: 'noneOf',
                    conditions: [
                      {
                        kind: 'change',
                        of: rejectionShare,
                        aggregate: 'avg',
                        window: '1m',
                        baseline: '2m',
                        mode: 'ratio',
                        op: '<=',
                        value: '$minRejectionHold',
                      },
                    ],
                  },
                  // Each call that fails closed is one rejection and one 500, so the 5xx share rises by about as
                  // much as the rejection share: by far less for denials (4xx), by far more for a control plane that
                  // fails on its own while denials wander.
                  errorsPerRejectionRise('>=', '$closedShare'),
                  errorsPerRejectionRise('<=', '$maxErrorsPerRejection'),
                ],
              },
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
    'apiserver-sustained-errors',
    'nodes-notready-at-scale',
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
};
