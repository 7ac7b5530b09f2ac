import { asQuotient } from '../condition.ts';
import type { Rule } from '../rule.ts';
import {
  errorsPerRejection,
  netWriteP99,
  rejectionShare,
  rejectionsPerRequest,
  shedShare,
  webhookFailureShare,
} from './operands.ts';
import { pauseAutoRepair } from './pause-auto-repair.ts';
import { APISERVER_TALK, EKS_DESCRIBE_CLUSTER, K8S_METRICS } from './sources.ts';

/** `control-plane-degraded`: see docs/rules.md for why each number, and its runbook (docs/runbooks/control-plane-degraded.md) for what to do. */
export const controlPlaneDegraded: Rule = {
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
    risingWriteP99Seconds: {
      default: 0.1,
      unit: 'seconds',
      description:
        'rise of the newest minute’s net write p99 over the average of the two before it that, with all three at writeP99Seconds or more, pages: a stall still building',
    },
    errorRatio: { default: 0.05, unit: 'ratio', description: 'share of apiserver requests answered 5xx or 429' },
    severeErrorRatio: {
      default: 0.25,
      unit: 'ratio',
      description: 'share of requests answered 5xx or 429 that pages after two minutes',
    },
    averageErrorRatio: {
      default: 0.15,
      unit: 'ratio',
      description:
        'share of requests answered 5xx or 429 over 15 minutes, counts pooled, that pages while errors recur (an outage that flaps), in a maintenance window too',
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
  // excludes it: a slow webhook taxes every write, but it is not the control plane. A stall that builds (etcd's disk
  // or its queue falling behind) is over the upstream SLO (1 s) in each of three minutes and still rising: that pages
  // on its third minute over the SLO, where a level that holds waits for its m of n (docs/rules.md says why).
  when: {
    kind: 'allOf',
    conditions: [
      {
        kind: 'anyOf',
        conditions: [
          { kind: 'sustained', of: netWriteP99, op: '>=', value: '$severeWriteP99Seconds', m: 2, n: 3 },
          { kind: 'sustained', of: netWriteP99, op: '>=', value: '$elevatedWriteP99Seconds', m: 3, n: 4 },
          {
            kind: 'allOf',
            conditions: [
              { kind: 'sustained', of: netWriteP99, op: '>=', value: '$writeP99Seconds', m: 3, n: 3 },
              {
                kind: 'change',
                of: netWriteP99,
                aggregate: 'avg',
                window: '1m',
                baseline: '2m',
                mode: 'delta',
                op: '>=',
                value: '$risingWriteP99Seconds',
              },
            ],
          },
          { kind: 'sustained', of: netWriteP99, op: '>=', value: '$writeP99Seconds', m: 10, n: 12 },
          { kind: 'sustained', of: shedShare, op: '>=', value: '$severeErrorRatio', m: 2, n: 3 },
          { kind: 'sustained', of: shedShare, op: '>=', value: '$errorRatio', m: 3, n: 4 },
          // An outage that flaps (two minutes at half, two at 3 %; or one in three minutes at 60 %) clears every
          // m of n above between its bursts, yet fails a large share of all requests: pooled over 15 minutes, it
          // pages while its bursts go on, and stops a few minutes after the last.
          {
            kind: 'allOf',
            conditions: [
              { kind: 'window', of: shedShare, aggregate: 'avg', window: '15m', op: '>=', value: '$averageErrorRatio' },
              { kind: 'sustained', of: shedShare, op: '>=', value: '$errorRatio', m: 1, n: 3 },
            ],
          },
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
  explains: [
    'node-repair-storm',
    'nodes-unreachable',
    'apiserver-restart-errors',
    'apiserver-sustained-errors',
    'nodes-notready-at-scale',
  ],
  holdDown: '15m',
  // An upgrade replaces apiservers one at a time, and each restart costs a few minutes of errors or slow writes at
  // most (KubeCon talk): those stay muted. The grace shrinks with the harm: four in ten requests failing or shed, or
  // writes at the severe p99, for six of eight minutes; a fifth failing, or writes at the elevated p99, for twelve of
  // fifteen (more than three restarts' bursts together); 15 % of all requests over 15 minutes, however the errors
  // flap (a restart's burst or two cannot fail that many); anything degraded that has not cleared for 30 minutes.
  // Those are outages the upgrade does not explain, and they page inside the window too (docs/rules.md, Maintenance).
  maintenance: {
    notifyAfter: '30m',
    notifyWhen: {
      kind: 'anyOf',
      conditions: [
        { kind: 'sustained', of: asQuotient(shedShare), op: '>=', value: 0.4, m: 6, n: 8 },
        { kind: 'sustained', of: netWriteP99, op: '>=', value: '$severeWriteP99Seconds', m: 6, n: 8 },
        { kind: 'sustained', of: asQuotient(shedShare), op: '>=', value: 0.2, m: 12, n: 15 },
        { kind: 'sustained', of: netWriteP99, op: '>=', value: '$elevatedWriteP99Seconds', m: 12, n: 15 },
        { kind: 'window', of: shedShare, aggregate: 'avg', window: '15m', op: '>=', value: '$averageErrorRatio' },
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
};
