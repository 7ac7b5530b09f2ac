import type { Rule } from '../rule.ts';
import { webhookFailureShare } from './operands.ts';
import { GATEKEEPER_FLAGS, GATEKEEPER_ISSUE } from './sources.ts';

/** `webhook-availability-gaps`: see docs/rules.md for why each number, and its runbook (docs/runbooks/webhook-availability-gaps.md) for what to do. */
export const webhookAvailabilityGaps: Rule = {
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
};
