import { type DeploymentConfig, type SecretReference, secretStoreOf } from '../shared/config/deployment-config.ts';
import { CONTAINER_INSIGHTS_METRICS } from '../shared/config/metric-catalogue.ts';
import { keySecretOf, pagingIntegrations } from '../shared/delivery/paging-integrations.ts';
import type { RuleSet } from '../shared/engine/rule-set.ts';
import type { SignalName } from '../shared/engine/signals.ts';
import { AWS_PRICES } from '../shared/pricing/aws-prices.ts';

/**
 * What Container Insights publishes for an EKS cluster, counted as CloudWatch bills it: 24 metrics per cluster, 8 per
 * node, 9 per pod and 6 per service, pods and services counted by name. No AWS page at hand states these counts: they
 * come from a user's tally in https://github.com/aws/containers-roadmap/issues/672, not from AWS. AWS's metric table
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Container-Insights-metrics-EKS.html) lists the
 * metrics and their dimension sets, each set a metric of its own, and says they are "charged as custom metrics". The
 * performance log events are billed as log ingestion on top, and left out here, so this is a floor.
 */
export const CONTAINER_INSIGHTS_METRICS_PER = { cluster: 24, node: 8, pod: 9, service: 6 } as const;

/** The cluster the signal costs are priced for: a small production cluster. */
export const REFERENCE_CLUSTER = { nodes: 10, pods: 30, services: 10 } as const;

/** The signals that only Container Insights publishes (shared/config/metric-catalogue.ts). */
const CONTAINER_INSIGHTS_SIGNALS: readonly SignalName[] = ['nodes.total', 'nodes.notready'];

export interface SignalCosts {
  /** Dollars per cluster-month of turning Container Insights on, for a cluster that does not have it yet. */
  readonly containerInsightsPerCluster: number;
  readonly containerInsightsMetrics: number;
  readonly basis: string;
  /** The rules that read a signal only Container Insights publishes: what a cluster without it loses. */
  readonly rulesNeedingContainerInsights: readonly string[];
}

/**
 * The cost of the signals the rules read that a cluster may not publish yet. The EKS control-plane metrics in AWS/EKS
 * come with the cluster; Container Insights is a choice each cluster pays for, and the NotReady rules need it.
 */
export function signalCosts(ruleSet: RuleSet): SignalCosts {
  const { nodes, pods, services } = REFERENCE_CLUSTER;
  const per = CONTAINER_INSIGHTS_METRICS_PER;
  const metrics = per.cluster + nodes * per.node + pods * per.pod + services * per.service;
  const needing = ruleSet.rules
    .filter((rule) => [...ruleSet.signals([rule])].some((signal) => CONTAINER_INSIGHTS_SIGNALS.includes(signal)))
    .map((rule) => rule.id);
  return {
    containerInsightsPerCluster: metrics * AWS_PRICES.containerInsightsMetricMonth.usd,
    containerInsightsMetrics: metrics,
    basis: `${metrics} ${CONTAINER_INSIGHTS_METRICS.namespace} metrics of a cluster of ${nodes} nodes, ${pods} pods and ${services} services, before its performance logs`,
    rulesNeedingContainerInsights: needing,
  };
}

/** A secret or SecureString parameter a configuration names, and the function that reads it. */
export interface ConfiguredSecret {
  readonly store: 'secret' | 'parameter';
  readonly name: string;
  readonly readBy: 'delivery' | 'poller';
}

/**
 * The secrets and parameters a configuration names, each once per function that reads it: the delivery function the
 * vendor keys and webhook URLs, the poller the external heartbeat's URL and Authorization. Two fields of one secret's
 * JSON are one secret, read once per cache period.
 */
export function configuredSecrets(config: DeploymentConfig): ConfiguredSecret[] {
  const heartbeat = config.selfMonitoring.externalHeartbeat;
  const read: { reference: SecretReference; readBy: ConfiguredSecret['readBy'] }[] = [
    ...pagingIntegrations(config).map(({ subscriber }) => ({
      reference: keySecretOf(subscriber),
      readBy: 'delivery' as const,
    })),
    ...[heartbeat?.urlSecret, heartbeat?.authorizationSecret].flatMap((reference) =>
      reference ? [{ reference, readBy: 'poller' as const }] : [],
    ),
  ];
  const named = new Map<string, ConfiguredSecret>();
  for (const { reference, readBy } of read) {
    const { store, name } = secretStoreOf(reference);
    named.set(`${readBy} ${store} ${name}`, { store, name, readBy });
  }
  return [...named.values()];
}

/** SMS subscribers per topic: each notification on the topic is one message to each, at least one part. */
export function smsSubscribers(config: DeploymentConfig): { readonly paging: number; readonly notice: number } {
  const count = (topic: 'paging' | 'notice') =>
    config.subscriptions[topic].reduce((n, s) => n + s.subscribers.filter((x) => x.protocol === 'sms').length, 0);
  return { paging: count('paging'), notice: count('notice') };
}
