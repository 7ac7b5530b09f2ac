import { clusterSchema } from '../../shared/config/deployment-config.ts';
import { clusterSources } from '../../shared/config/metric-catalogue.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { graphLink } from '../../shared/notify/graph-link.ts';
import { defaultRuleSet, notificationAt } from '../support/engine-fixtures.ts';

/** A cluster name of the longest kind EKS allows (100 characters), numbered so that every one differs. */
export function longClusterName(index: number): string {
  return `prod-${String(index).padStart(5, '0')}-`.padEnd(100, 'x');
}

/**
 * A page that groups `count` clusters (with long names unless told), each with two lines of evidence and the graph of
 * its first clusters, as a fleet page does.
 */
export function fleetPage(count: number, nameOf: (index: number) => string = longClusterName): Notification {
  const at = '2026-11-20T10:00:00Z';
  const clusters = Array.from({ length: count }, (_, i) => nameOf(i));
  const page = notificationAt({
    at,
    kind: 'page',
    rule: 'webhook-blackhole',
    title: `Admission webhook is black-holing API writes on ${count} clusters`,
    summary: 'Admission webhook calls time out, so API writes stall.',
    clusters,
    // Where the first cluster runs, in one of the longest Region names, as every first screen shows it.
    where: { account: '111122223333', region: 'ap-southeast-5' },
    incidents: clusters.map((cluster) => `${cluster}/webhook-blackhole/${at}`),
    evidence: clusters.map((cluster) => ({
      cluster,
      incident: `${cluster}/webhook-blackhole/${at}`,
      rule: 'webhook-blackhole',
      items: [
        {
          what: 'webhook.p99',
          over: '2 of last 3 samples, needs 2',
          observed: 10,
          op: '>=',
          threshold: 2.5,
          unit: 'seconds',
          passed: true,
        },
        {
          what: 'apiserver.write.p99',
          over: '2 of last 3 samples, needs 2',
          observed: 9.5,
          op: '>=',
          threshold: 1,
          unit: 'seconds',
          passed: true,
        },
      ],
    })),
    hints: [{ text: 'Find the webhook whose calls time out.', source: 'docs/runbooks/webhook-blackhole.md' }],
    runbook: 'https://example.com/runbooks/webhook-blackhole.md',
  });
  const graph = graphLink(
    {
      ...page,
      evidence: page.evidence.flatMap((e) => e.items.map((item) => ({ cluster: e.cluster, rule: e.rule, item }))),
      ruleSet: defaultRuleSet(),
    },
    {
      region: 'eu-west-1',
      clusters: new Map(clusters.map((name) => [name, { sources: clusterSources(clusterSchema.parse({ name })) }])),
    },
  );
  return { ...page, ...(graph && { graph }) };
}
