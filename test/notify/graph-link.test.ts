import { clusterSchema } from '../../shared/config/deployment-config.ts';
import { clusterSources } from '../../shared/config/metric-catalogue.ts';
import type { Condition } from '../../shared/engine/condition.ts';
import { evaluateCondition } from '../../shared/engine/evaluate-condition.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { errorShare } from '../../shared/engine/rules/operands.ts';
import { type GraphEvidence, type GraphSettings, graphLink } from '../../shared/notify/graph-link.ts';
import { signalSources } from '../../shared/pipeline/query-plan.ts';
import { defaultRuleSet, only, replayShipped, ruleSetOf, testRule, windowOf } from '../support/engine-fixtures.ts';
import { metricRows, parseJsurl } from '../support/jsurl.ts';

interface Graph {
  title: string;
  region?: string;
  start: string;
  end: string;
  period: number;
  metrics: unknown[][];
  annotations: { horizontal: { label: string; value: number; yAxis: string }[]; vertical: { label: string }[] };
}

/** What a console link graphs, read back from its `graph=`. */
function graphOf(link: string | undefined): Graph {
  const [, graph] = (link ?? '').split('#metricsV2:graph=');
  return parseJsurl(graph ?? '') as Graph;
}

/** The metrics a graph reads, as `namespace metricName dimension=value`, and the options each carries. */
function metricsOf(graph: Graph): { name: string; options: Record<string, unknown> }[] {
  return metricRows(graph).map((entry) => {
    const [namespace, metricName, key, value] = entry as string[];
    return { name: `${namespace} ${metricName} ${key}=${value}`, options: entry.at(-1) as Record<string, unknown> };
  });
}

const evidenceOf = (notification: Notification, cluster = notification.clusters[0] ?? ''): GraphEvidence[] =>
  notification.evidence.flatMap((e) => e.items.map((item) => ({ cluster, rule: e.rule, item })));

describe('the graph one click away from a notification', () => {
  let page: Notification;
  let resolve: Notification;

  beforeAll(async () => {
    const { notifications } = await replayShipped('opa-webhook-outage');
    page = notifications.find((n) => n.kind === 'page') as Notification;
    resolve = notifications.find((n) => n.kind === 'resolve' && n.rule === page.rule) as Notification;
  });

  it('graphs only metrics the poller reads for the cluster, from the one catalogue', () => {
    const read = signalSources(clusterSchema.parse({ name: 'dev-euw1' })).flatMap((source) =>
      source.metrics.map((m) => `${m.namespace} ${m.metricName} ${Object.entries(m.dimensions).flat().join('=')}`),
    );

    const graphed = metricsOf(graphOf(page.graph)).map((m) => m.name);

    expect(graphed).toEqual(
      expect.arrayContaining([
        'AWS/EKS apiserver_admission_webhook_admission_duration_seconds_ADMIT_P99 ClusterName=dev-euw1',
        'AWS/EKS apiserver_request_total_5XX ClusterName=dev-euw1',
      ]),
    );
    expect(graphed.filter((name) => !read.includes(name))).toEqual([]);
  });

  it('draws each per-sample threshold of the page as a horizontal line', () => {
    const { horizontal } = graphOf(page.graph).annotations;

    expect(horizontal).toEqual(
      expect.arrayContaining([
        { label: 'webhook.p99 >= 2.5', value: 2.5, yAxis: 'left' },
        { label: 'apiserver.5xx / apiserver.requests (95 % lower bound) >= 0.05', value: 0.05, yAxis: 'right' },
      ]),
    );
  });

  it('combines a signal of several metrics and a ratio with metric math, as the poller does', () => {
    const expressions = graphOf(page.graph)
      .metrics.filter((entry) => typeof entry[0] === 'object')
      .map((entry) => (entry[0] as { expression: string; label: string }).label);

    expect(expressions).toEqual(['webhook.p99', 'apiserver.write.p99', 'apiserver.5xx / apiserver.requests']);
  });

  it('spans the incident from two hours before it opened, with the opening marked', () => {
    const graph = graphOf(page.graph);

    expect([graph.start, graph.end, graph.period]).toEqual([
      new Date(Date.parse(page.openedAt) - 7_200_000).toISOString(),
      new Date(Date.parse(page.at) + 3_600_000).toISOString(),
      60,
    ]);
    expect(graph.annotations.vertical).toEqual([{ label: 'incident opened', value: page.openedAt }]);
  });

  it('comes with the resolve too, up to a quarter of an hour after it, the resolve marked', () => {
    const graph = graphOf(resolve.graph);

    expect(graph.end).toBe(new Date(Date.parse(resolve.at) + 900_000).toISOString());
    expect(graph.annotations.vertical.map((v) => v.label)).toEqual(['incident opened', 'resolve']);
    expect(metricsOf(graph).length).toBeGreaterThan(0);
  });

  it('names the account and Region of a cluster read across accounts, in the console of the ops Region', () => {
    const cluster = clusterSchema.parse({ name: 'dev-euw1', accountId: '111122223333', region: 'eu-west-2' });
    const settings: GraphSettings = {
      region: 'eu-west-1',
      clusters: new Map([
        ['dev-euw1', { accountId: '111122223333', region: 'eu-west-2', sources: clusterSources(cluster) }],
      ]),
    };

    const link = graphLink({ ...page, evidence: evidenceOf(page), ruleSet: defaultRuleSet() }, settings);

    expect(link).toMatch(/^https:\/\/eu-west-1\.console\.aws\.amazon\.com\/cloudwatch\/home\?region=eu-west-1#/);
    expect(metricsOf(graphOf(link)).map((m) => [m.options.accountId, m.options.region])).toEqual(
      expect.arrayContaining([['111122223333', 'eu-west-2']]),
    );
    expect(graphOf(link).region).toBe('eu-west-1');
  });

  it('graphs the first five clusters of a fleet page, and says so in its title', () => {
    const names = Array.from({ length: 12 }, (_, i) => `prod-${i}`);
    const settings: GraphSettings = {
      clusters: new Map(names.map((name) => [name, { sources: clusterSources(clusterSchema.parse({ name })) }])),
    };
    const evidence = names.flatMap((name) => evidenceOf(page, name));

    const graph = graphOf(graphLink({ ...page, title: 'Fleet', evidence, ruleSet: defaultRuleSet() }, settings));

    expect(graph.title).toBe('Fleet (first 5 of 12 clusters shown)');
    expect(new Set(metricsOf(graph).map((m) => m.name.split('=')[1]))).toEqual(new Set(names.slice(0, 5)));
  });

  it('graphs each signal of a cluster gone dark on a line of its own, with no threshold', () => {
    const settings: GraphSettings = {
      clusters: new Map([['dev-euw1', { sources: clusterSources(clusterSchema.parse({ name: 'dev-euw1' })) }]]),
    };
    const item = {
      what: 'datapoints of apiserver.requests, apiserver.write.p99',
      over: 'last 10m',
      observed: 0,
      op: '<=' as const,
      threshold: 0,
      unit: 'count',
      passed: true,
    };
    const evidence = [{ cluster: 'dev-euw1', rule: 'signals-missing', item }];

    const graph = graphOf(graphLink({ ...page, evidence, ruleSet: defaultRuleSet() }, settings));
    const labels = graph.metrics.map((entry) => (entry.at(-1) as { label?: string }).label).filter(Boolean);

    expect(labels).toEqual(['apiserver.requests', 'apiserver.write.p99']);
    expect(graph.annotations.horizontal).toEqual([]);
  });

  it('draws no level for a change between windows: its threshold is a rise, not a level of the line', async () => {
    const { notifications } = await replayShipped('aggregated-api-down-for-hours');
    const ticket = only(notifications.filter((n) => n.kind === 'ticket' && n.rule === 'apiserver-sustained-errors'));

    const graph = graphOf(ticket.graph);

    expect(graph.annotations.horizontal).toEqual([
      { label: 'apiserver.5xx / apiserver.requests >= 0.01', value: 0.01, yAxis: 'left' },
    ]);
  });

  it('graphs a change of a share read at a confidence, which its evidence names', () => {
    const rise: Condition = {
      kind: 'change',
      of: errorShare,
      aggregate: 'avg',
      window: '1h',
      baseline: '6h',
      mode: 'delta',
      op: '>=',
      value: 0.005,
    };
    const window = windowOf({ 'apiserver.5xx': '10*360 400*60', 'apiserver.requests': '10000*420' });
    const [item] = evaluateCondition(rise, window, {}).evidence;
    const settings: GraphSettings = {
      clusters: new Map([['dev-euw1', { sources: clusterSources(clusterSchema.parse({ name: 'dev-euw1' })) }]]),
    };
    const evidence = item ? [{ cluster: 'dev-euw1', rule: 'share-rise', item }] : [];

    const graph = graphOf(graphLink({ ...page, evidence, ruleSet: ruleSetOf(testRule('share-rise', rise)) }, settings));

    expect(graph.metrics.map((entry) => (entry.at(-1) as { label?: string }).label).filter(Boolean)).toEqual([
      'apiserver.5xx / apiserver.requests',
    ]);
    expect(graph.annotations.horizontal).toEqual([]);
  });

  it('graphs evidence stored before it named its condition as it did, by the rule condition its text reads as', () => {
    const settings: GraphSettings = {
      clusters: new Map([['dev-euw1', { sources: clusterSources(clusterSchema.parse({ name: 'dev-euw1' })) }]]),
    };
    const stored = evidenceOf(page).map(({ item: { condition: _kind, ...item }, ...rest }) => ({ ...rest, item }));

    const link = graphLink({ ...page, evidence: stored, ruleSet: defaultRuleSet() }, settings);

    expect(stored.some((e) => 'condition' in e.item)).toBe(false);
    expect(graphOf(link).annotations.horizontal).toEqual(graphOf(page.graph).annotations.horizontal);
    expect(metricsOf(graphOf(link)).length).toBe(metricsOf(graphOf(page.graph)).length);
  });

  it('is left out when there is nothing to graph', () => {
    expect(graphLink({ ...page, evidence: [], ruleSet: defaultRuleSet() }, { clusters: new Map() })).toBeUndefined();
  });
});
