import { asQuotient } from '../condition.ts';
import type { Rule } from '../rule.ts';
import { errorShare } from './operands.ts';
import { EKS_CONTROL_PLANE_LOGS, K8S_AGGREGATION, K8S_METRICS } from './sources.ts';

/**
 * `apiserver-sustained-errors`: a low share of requests answered 5xx that does not stop, above the cluster's own
 * baseline. Too low for control-plane-degraded, too steady for apiserver-restart-errors: the shape of one API that
 * keeps failing while the rest of the apiserver is fine. docs/rules.md says why each number.
 */
export const apiserverSustainedErrors: Rule = {
  id: 'apiserver-sustained-errors',
  title: 'A share of API requests keeps failing: an aggregated API, a conversion webhook or one resource’s storage',
  summary:
    'For an hour or more a low share of API requests has been answered 5xx, above what this cluster usually answers, while the rest of the apiserver is healthy. That is usually one API failing while the others work: an aggregated API whose backend is down (metrics.k8s.io: autoscaling frozen, kubectl top failing; every client’s discovery erroring on that group), a CRD conversion webhook that cannot be reached, or a storage error on one resource.',
  severity: 'ticket',
  params: {
    errorRatio: {
      default: 0.01,
      unit: 'ratio',
      description: 'share of requests answered 5xx that holds for most of an hour',
    },
    errorRise: {
      default: 0.005,
      unit: 'ratio',
      description:
        'rise of the hour’s 5xx share over the six hours before it, at the least the counts support: above the cluster’s own normal',
    },
    errorCountRise: {
      default: 1.5,
      unit: 'x',
      description:
        'the hour’s 5xx a minute against the six hours before: the errors rose, not only their share as the traffic fell',
    },
  },
  // Fifty of sixty minutes holds through a quiet minute or two; the rise over the six hours before keeps a cluster
  // whose usual error share is above the line quiet. The rise pools each window's counts and takes the smallest
  // difference they support: half a point of a 5-node cluster's 6,000 requests an hour is 30 errors, well within what
  // chance moves its 180 by. At 99.9 %, because the hour slides a minute at a time all day: a thousand looks a day,
  // each a chance for noise to cross a bound that one look would trust.
  when: {
    kind: 'allOf',
    conditions: [
      { kind: 'sustained', of: asQuotient(errorShare), op: '>=', value: '$errorRatio', m: 50, n: 60 },
      {
        kind: 'change',
        of: { ...errorShare, confidence: 0.999 },
        aggregate: 'avg',
        window: '1h',
        baseline: '6h',
        mode: 'delta',
        op: '>=',
        value: '$errorRise',
      },
      // The errors themselves rose. A client that fails at a steady rate (discovery of an APIService left behind by
      // an uninstalled adapter) on a cluster whose traffic falls by three quarters at night raises the share by
      // points without anything having broken.
      {
        kind: 'change',
        of: 'apiserver.5xx',
        aggregate: 'avg',
        window: '1h',
        baseline: '6h',
        mode: 'ratio',
        op: '>=',
        value: '$errorCountRise',
      },
    ],
  },
  explains: [],
  // Errors that pause and come back within two hours are the same broken API.
  holdDown: '2h',
  maintenance: 'mute',
  hints: [
    {
      text: 'Is an aggregated API unavailable? An APIService whose AVAILABLE column is False (MissingEndpoints, FailedDiscoveryCheck) answers 503 to every request for its group, discovery included; the message names the Service behind it.',
      commands: [
        'kubectl get apiservices',
        'kubectl get apiservices -o jsonpath=\'{range .items[?(@.status.conditions[0].status=="False")]}{.metadata.name}{"\\t"}{.spec.service.namespace}/{.spec.service.name}{"\\t"}{.status.conditions[0].message}{"\\n"}{end}\'',
      ],
      source: K8S_AGGREGATION,
    },
    {
      text: 'Which resource fails? The apiserver counts requests by resource and code; the 5xx by resource point at the broken API (metrics.k8s.io pods or nodes, one CRD, one built-in resource).',
      commands: [
        "kubectl get --raw /metrics | grep '^apiserver_request_total' | grep 'code=\"5' | sort -k2 -rn | head -15",
      ],
      source: K8S_METRICS,
    },
    {
      text: 'The same from the control-plane audit log (needs the EKS "audit" log type): 5xx answers of the last hour by API group and resource.',
      appliesTo: ['eks-control-plane'],
      commands: [
        "aws logs start-query --region {region} --log-group-name /aws/eks/{cluster}/cluster --start-time $(( $(date +%s) - 3600 )) --end-time $(date +%s) --query-string 'filter @logStream like /^kube-apiserver-audit/ and responseStatus.code >= 500 | stats count(*) as errors by objectRef.apiGroup, objectRef.resource, responseStatus.code | sort errors desc | limit 20' --query queryId --output text",
        'aws logs get-query-results --region {region} --query-id <query-id>',
      ],
      source: EKS_CONTROL_PLANE_LOGS,
    },
    {
      text: 'A custom resource whose reads fail with conversion errors: find the CRDs that convert through a webhook and check that webhook’s Service and endpoints.',
      commands: [
        'kubectl get crd -o jsonpath=\'{range .items[?(@.spec.conversion.strategy=="Webhook")]}{.metadata.name}{"\\t"}{.spec.conversion.webhook.clientConfig.service.namespace}/{.spec.conversion.webhook.clientConfig.service.name}{"\\n"}{end}\'',
      ],
      source: K8S_AGGREGATION,
    },
  ],
  runbook: 'docs/runbooks/apiserver-sustained-errors.md',
};
