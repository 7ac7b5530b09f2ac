import { describe, expect, it } from '@jest/globals';
import {
  CONTAINER_INSIGHTS_METRICS,
  containerInsightsMetric,
  EKS_METRICS,
} from '../../shared/config/metric-catalogue.ts';
import { listingPlans, metricKey, type WantedMetric } from '../../shared/doctor/metric-listing.ts';
import type { MetricSpec } from '../../shared/pipeline/query-plan.ts';

const [A, B] = ['111111111111', '222222222222'];
const eks = (cluster: string, metricName: string = EKS_METRICS.requests): MetricSpec => ({
  namespace: EKS_METRICS.namespace,
  metricName,
  dimensions: { ClusterName: cluster },
  stat: 'Sum',
});
const across = (metricName: string, linked: boolean, owningAccount?: string) => ({
  namespace: EKS_METRICS.namespace,
  metricName,
  linked,
  ...(owningAccount && { owningAccount }),
});

describe('the ListMetrics questions doctor asks of a Region', () => {
  it('lists a metric name across the Region once for a thousand clusters, in at most as many pages', () => {
    const wanted: WantedMetric[] = Array.from({ length: 1_000 }, (_, i) => ({ spec: eks(`c${i}`) }));

    const plans = listingPlans(wanted);

    expect(plans.map(({ across, pages }) => ({ across, pages }))).toEqual([
      { across: across(EKS_METRICS.requests, false), pages: 1_000 },
    ]);
  });

  it('lists the linked clusters apart: of their one account, or of every linked account when they are several', () => {
    const one = listingPlans([{ account: A, spec: eks('a') }, { spec: eks('own') }]);
    const several = listingPlans([
      { account: A, spec: eks('a') },
      { account: B, spec: eks('b') },
    ]);

    expect(one.map((p) => p.across)).toEqual([
      across(EKS_METRICS.requests, true, A),
      across(EKS_METRICS.requests, false),
    ]);
    expect(several.map((p) => p.across)).toEqual([across(EKS_METRICS.requests, true)]);
  });

  it('has one plan per metric name, which a metric wanted twice (a probe) costs no extra page', () => {
    const wanted = ['a', 'b', 'c'].flatMap((cluster) => [
      { spec: containerInsightsMetric(cluster, CONTAINER_INSIGHTS_METRICS.nodes) },
      { spec: containerInsightsMetric(cluster, CONTAINER_INSIGHTS_METRICS.failedNodes) },
      { spec: containerInsightsMetric(cluster, CONTAINER_INSIGHTS_METRICS.nodes) },
      { spec: eks(cluster, EKS_METRICS.requests5xx) },
    ]);

    expect(listingPlans(wanted).map((p) => [p.across.metricName, p.pages])).toEqual([
      [CONTAINER_INSIGHTS_METRICS.nodes, 3],
      [CONTAINER_INSIGHTS_METRICS.failedNodes, 3],
      [EKS_METRICS.requests5xx, 3],
    ]);
  });

  it('keeps each metric on its own, filtered by its dimensions and its account, for a name with too many pages', () => {
    const [plan] = listingPlans([{ spec: eks('a') }]);
    const [linked] = listingPlans([
      { account: A, spec: eks('a') },
      { account: B, spec: eks('b') },
    ]);

    expect(plan?.each).toEqual([
      {
        query: { ...across(EKS_METRICS.requests, false), dimensions: { ClusterName: 'a' } },
        key: metricKey(undefined, EKS_METRICS.namespace, EKS_METRICS.requests, { ClusterName: 'a' }),
      },
    ]);
    expect(linked?.each.map((e) => e.query)).toEqual([
      { ...across(EKS_METRICS.requests, true, A), dimensions: { ClusterName: 'a' } },
      { ...across(EKS_METRICS.requests, true, B), dimensions: { ClusterName: 'b' } },
    ]);
    expect(linked?.pages).toBe(2);
  });
});

describe('the key a listed metric is matched by', () => {
  it('is the same whatever the order of the dimensions, and differs by account and by any extra dimension', () => {
    const key = metricKey(undefined, 'N', 'm', { ClusterName: 'a', Verb: 'GET' });

    expect(metricKey(undefined, 'N', 'm', { Verb: 'GET', ClusterName: 'a' })).toBe(key);
    expect(metricKey(A, 'N', 'm', { ClusterName: 'a', Verb: 'GET' })).not.toBe(key);
    expect(metricKey(undefined, 'N', 'm', { ClusterName: 'a' })).not.toBe(key);
  });
});
