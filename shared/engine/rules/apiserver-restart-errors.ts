import type { Rule } from '../rule.ts';
import { shedShare } from './operands.ts';
import { APISERVER_TALK, EKS_APISERVER_CONFIG, EKS_DESCRIBE_CLUSTER, KMS_PR } from './sources.ts';

/** `apiserver-restart-errors`: see docs/rules.md for why each number, and its runbook (docs/runbooks/apiserver-restart-errors.md) for what to do. */
export const apiserverRestartErrors: Rule = {
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
      description: 'minutes of the hour at or above the floor share: more is an outage, not restarts',
    },
    floorRatio: {
      default: 0.01,
      unit: 'ratio',
      description: 'share of 5xx plus 429 under which the minutes between bursts stay: half the default burst share',
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
        // Each burst at 99.9 %, since the hour slides a minute at a time all day: at 95 % a small cluster's steady
        // errors at night (1.5 a minute of 90 requests) read a minute of six or seven as a burst about once an hour.
        kind: 'window',
        of: { ...shedShare, confidence: 0.999 },
        aggregate: 'episodes',
        window: '1h',
        where: { op: '>=', value: '$errorRatio' },
        op: '>=',
        value: '$bursts',
      },
      // A restart drops requests for a minute or two, from a floor far under the burst share; an error share that
      // hovers near the line for most of the hour (an outage, or an API that keeps failing) is another rule's, and
      // its noise crossing the line must not read as bursts: at most ten minutes of the hour at the floor share (1 %, half
      // the default burst share; an override of the burst share leaves it as it is).
      {
        kind: 'window',
        of: shedShare,
        aggregate: 'count',
        window: '1h',
        where: { op: '>=', value: '$floorRatio' },
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
};
