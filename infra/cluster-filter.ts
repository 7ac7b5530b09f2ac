import * as sns from 'aws-cdk-lib/aws-sns';

/**
 * A filter on the `cluster` message attribute of a notification. The notifier sends `cluster` as a `String.Array` of
 * the clusters a notification is about, and SNS matches a `String.Array` attribute when any element matches: a
 * subscription to `prod-euw1` hears about prod-euw1 alone and about every grouped notification that includes it.
 *
 * Names match exactly, so `prod` does not match `prod-euw1`. A publisher that sent the names as one comma-joined
 * `String` instead would reach only the subscriptions of single-cluster notifications.
 */
export function clusterFilterPolicy(clusters: readonly string[]): Record<string, sns.SubscriptionFilter> {
  return { cluster: sns.SubscriptionFilter.stringFilter({ allowlist: [...new Set(clusters)] }) };
}
