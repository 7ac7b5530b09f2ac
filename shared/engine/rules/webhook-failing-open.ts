import { asQuotient } from '../condition.ts';
import type { Rule } from '../rule.ts';
import { errorsPerFailure, webhookFailureShare } from './operands.ts';
import { GATEKEEPER_ISSUE, K8S_METRICS } from './sources.ts';

/** `webhook-failing-open`: see docs/rules.md for why each number, and its runbook (docs/runbooks/webhook-failing-open.md) for what to do. */
export const webhookFailingOpen: Rule = {
  id: 'webhook-failing-open',
  title: 'Admission webhook fails open: its policy is not enforced',
  summary:
    'Most calls to an admission webhook with failurePolicy Ignore have been failing for many minutes. API requests still succeed, without the webhook: nothing it validates is checked and nothing it mutates is changed. Only visible with webhook.failures (a scraped custom metric).',
  severity: 'ticket',
  params: {
    failureRatio: { default: 0.2, unit: 'ratio', description: 'share of webhook calls that fail' },
    narrowRise: {
      default: 0.02,
      unit: 'ratio',
      description:
        'share of webhook calls failing, risen by at least this over the 6 hours before (as far as the counts support it): a narrow webhook beside busy ones',
    },
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
      {
        kind: 'anyOf',
        conditions: [
          { kind: 'sustained', of: asQuotient(webhookFailureShare), op: '>=', value: '$failureRatio', m: 10, n: 15 },
          {
            // A narrow webhook (an image rewrite on Pods only) beside a policy that sees every request fails a few
            // percent of all calls, never a fifth: judged against the cluster's own 6 hours before, pooled, and held
            // for 10 of 15 minutes, so that a rollout's minutes of refused calls stay webhook-availability-gaps'.
            kind: 'allOf',
            conditions: [
              {
                kind: 'change',
                of: webhookFailureShare,
                aggregate: 'avg',
                window: '15m',
                baseline: '6h',
                mode: 'delta',
                op: '>=',
                value: '$narrowRise',
              },
              { kind: 'sustained', of: asQuotient(webhookFailureShare), op: '>=', value: '$narrowRise', m: 10, n: 15 },
            ],
          },
        ],
      },
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
};
