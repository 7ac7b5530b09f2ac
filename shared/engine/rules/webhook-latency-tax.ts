import type { Rule } from '../rule.ts';
import { K8S_DOCS, OPA_POSTMORTEM } from './sources.ts';

/** `webhook-latency-tax`: see docs/rules.md for why each number, and its runbook (docs/runbooks/webhook-latency-tax.md) for what to do. */
export const webhookLatencyTax: Rule = {
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
};
