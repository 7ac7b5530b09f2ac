/**
 * The ratios and differences several default rules read, written once. A share of requests or calls is read as the
 * lowest share its counts support at 95 % confidence (docs/rules.md, "Shares of a few events"): a handful of errors a
 * minute on a small cluster wanders around any threshold by chance alone. Shares of nodes are counts of the whole
 * cluster, not samples of it, and are read as they are.
 */
const SHARE = 0.95;
// A condition that asks a share to hold for many minutes (6 of 8 and more) reads it with `asQuotient`: those
// minutes together are its evidence, and a bound on each would ask for the evidence twice.

export const webhookFailureShare = {
  ratio: ['webhook.failures', 'webhook.requests'],
  minDenominator: 10,
  confidence: SHARE,
} as const;
export const errorShare = {
  ratio: ['apiserver.5xx', 'apiserver.requests'],
  minDenominator: 50,
  confidence: SHARE,
} as const;
/** 5xx and APF 429s together: load the apiserver failed to serve or chose to shed. */
export const shedShare = {
  ratio: [{ sum: ['apiserver.5xx', 'apiserver.429'] }, 'apiserver.requests'],
  minDenominator: 50,
  confidence: SHARE,
} as const;
/**
 * Rejections among webhook calls: policy denials and, under `failurePolicy: Fail`, calling errors (EKS publishes one
 * `apiserver_admission_webhook_rejection_count` for both).
 */
export const rejectionShare = {
  ratio: ['webhook.rejections', 'webhook.requests'],
  minDenominator: 10,
  confidence: SHARE,
} as const;
/**
 * 5xx per rejected (or failed) webhook call. A call that fails closed answers 500 (`apierrors.NewInternalError` in the
 * apiserver's webhook dispatchers), so this is about 1 when a webhook fails closed; a denial answers 4xx, so policy
 * denials keep it near 0.
 */
export const errorsPerRejection = { ratio: ['apiserver.5xx', 'webhook.rejections'], minDenominator: 10 } as const;
export const errorsPerFailure = { ratio: ['apiserver.5xx', 'webhook.failures'], minDenominator: 10 } as const;
export const rejectionsPerRequest = {
  ratio: ['webhook.rejections', 'apiserver.requests'],
  minDenominator: 50,
  confidence: SHARE,
} as const;
/** Write p99 net of the webhook p99: the apiserver's own share, as the upstream request SLI leaves webhook time out. */
export const netWriteP99 = { difference: ['apiserver.write.p99', 'webhook.p99'] } as const;
export const notReadyShare = { ratio: ['nodes.notready', 'nodes.total'], minDenominator: 1 } as const;
/**
 * Replacements that could be repairs: every termination but those the events name as spot interruptions (or
 * rebalances) and scale-ins. A cluster without those signals subtracts nothing, as before they existed.
 */
export const possibleRepairs = {
  difference: ['nodes.replaced', { sum: ['nodes.interrupted', 'nodes.scaledin'] }],
} as const;
/**
 * Nodes replaced, repairs or not, but not those an Auto Scaling group removed to shrink: a scale-in takes capacity
 * away on purpose and nothing comes back in its place. A cluster without `nodes.scaledin` subtracts nothing.
 */
export const churnedNodes = { difference: ['nodes.replaced', 'nodes.scaledin'] } as const;
/** Those replacements as a share of the cluster. */
export const churnedShare = { ratio: [churnedNodes, 'nodes.total'], minDenominator: 1 } as const;
export const repairedShare = { ratio: [possibleRepairs, 'nodes.total'], minDenominator: 1 } as const;
