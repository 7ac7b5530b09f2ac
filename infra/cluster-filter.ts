import * as sns from 'aws-cdk-lib/aws-sns';
import { MORE_CLUSTERS, SMS_KINDS } from '../shared/notify/message-bodies.ts';

/**
 * A filter on the `cluster` message attribute of a notification. The notifier sends `cluster` as a `String.Array` of
 * the clusters a notification is about, and SNS matches a `String.Array` attribute when any element matches: a
 * subscription to `prod-euw1` hears about prod-euw1 alone and about every grouped notification that includes it.
 *
 * Names match exactly, so `prod` does not match `prod-euw1`. A publisher that sent the names as one comma-joined
 * `String` instead would reach only the subscriptions of single-cluster notifications.
 *
 * A fleet page names more clusters than the attribute may carry: the attribute then lists the first ones and ends
 * with `MORE_CLUSTERS`, which every cluster filter allows too, so that a subscriber hears of a fleet page that may
 * include its cluster rather than miss one that does (the page's body lists the clusters).
 */
export function clusterFilterPolicy(clusters: readonly string[]): Record<string, sns.SubscriptionFilter> {
  return { cluster: sns.SubscriptionFilter.stringFilter({ allowlist: [...new Set(clusters), MORE_CLUSTERS] }) };
}

/**
 * A filter on the `kind` attribute that lets an SMS subscriber of the paging topic take pages and resolves only, and
 * the pipeline's alarms, which carry no `kind` (`exists: false`). SNS multiplies the values of a policy's keys:
 * three here, so a cluster filter beside it names at most 49 clusters (shared/config/config-verdict.ts).
 */
export function smsKindFilterPolicy(pipelineAlarms = true): Record<string, sns.SubscriptionFilter> {
  return { kind: new sns.SubscriptionFilter([...SMS_KINDS, ...(pipelineAlarms ? [{ exists: false }] : [])]) };
}

/** A filter on the `kind` attribute that keeps the pipeline's alarms, which carry none, off a subscriber. */
export function withoutPipelineAlarmsFilterPolicy(): Record<string, sns.SubscriptionFilter> {
  return { kind: sns.SubscriptionFilter.existsFilter() };
}
