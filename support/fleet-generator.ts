import type { MetricDatum } from '@aws-sdk/client-cloudwatch';
import { type ClusterConfig, clusterSchema, compileRuleSet } from '../shared/config/deployment-config.ts';
import type { Sample, SignalName } from '../shared/engine/signals.ts';
import { tripwireAlarmName } from '../shared/pipeline/alarm-names.ts';
import { buildPlan } from '../shared/pipeline/build-plan.ts';
import { dueReads } from '../shared/pipeline/cadence.ts';
import type { RecordedTripwireState } from '../shared/pipeline/ports.ts';
import { signalSources } from '../shared/pipeline/query-plan.ts';
import { tripwireStateExpiresAt } from '../shared/pipeline/tripwire-state.ts';
import type { WatchPlan } from '../shared/pipeline/watch-plan.ts';
import type { CloudWatchServer } from './cloudwatch-server.ts';
import { webhookFailuresFromPrometheus } from './prometheus-signals.ts';
import { seededRandom } from './seeded-random.ts';

/** One seed for the whole benchmark: change it and every generated fleet changes, keep it and they repeat. */
export const FLEET_SEED = 0x5e17_e1;

/** The step every fleet poll evaluates; any minute works, a fixed one keeps the runs identical. */
export const FLEET_STEP_AT = Date.parse('2026-01-05T12:00:00Z');
/** When the poll of that step runs, on CloudWatch's clock: a minute later, as the poller reads behind ingestion. */
export const FLEET_POLL_AT = FLEET_STEP_AT + 60_000;

/** The deployment the fleet's tripwire alarms are named for. */
export const FLEET_DEPLOYMENT = 'bench';

/** One cluster in a hundred has an admission webhook black-holing writes, so the engine has incidents to open. */
const INCIDENT_SHARE = 0.01;
/** The outage's minutes up to the evaluated step: long enough for webhook-blackhole to fire. */
const INCIDENT_MINUTES = 5;
/** The first minute of the outage. */
export const FLEET_OUTAGE_STARTS = FLEET_STEP_AT - (INCIDENT_MINUTES - 1) * 60_000;

/**
 * A fleet of `size` clusters shaped like the example configuration's production cluster: the EKS profile with
 * Container Insights, two node groups and webhook failures from a custom namespace (18 metrics per poll). Cluster i
 * is the same in every fleet size, so a bigger fleet only adds clusters.
 */
export function fleetClusters(size: number): ClusterConfig[] {
  return Array.from({ length: size }, (_, index) => fleetCluster(index));
}

function fleetCluster(index: number): ClusterConfig {
  const name = `fleet-${String(index).padStart(5, '0')}`;
  return clusterSchema.parse({
    name,
    source: {
      profile: 'eks',
      nodeGroups: [`${name}-general`, `${name}-spot`],
      custom: webhookFailuresFromPrometheus(name),
    },
  });
}

/** Whether cluster `index` is one of the fleet's outages: seeded, so the same clusters are down in every run. */
function hasIncident(index: number): boolean {
  return index === 0 || seededRandom(FLEET_SEED ^ (index * 2_654_435_761))() < INCIDENT_SHARE;
}

/**
 * A cluster's signals over `samples` minutes, newest last: a healthy control plane with noise and load of its own,
 * or, for an incident cluster, the OPA outage's signature (webhook timing out, writes stalling) at the end.
 */
function clusterSignals(index: number, samples: number): Record<SignalName, Sample[]> {
  const random = seededRandom(FLEET_SEED + index);
  const load = 1000 + Math.round(random() * 8000);
  const nodes = 10 + Math.round(random() * 190);
  const webhookCalls = Math.round(load * (0.1 + random() * 0.2));
  const down = hasIncident(index);
  const series = (healthy: () => number, outage: () => number): Sample[] =>
    Array.from({ length: samples }, (_, i) => (down && i >= samples - INCIDENT_MINUTES ? outage() : healthy()));
  const jitter = (base: number, spread: number) => () => Math.round((base + random() * spread) * 1000) / 1000;
  const count = (mean: number) => () => Math.round(mean * (0.8 + random() * 0.4));
  return {
    'apiserver.write.p99': series(jitter(0.15, 0.1), jitter(9.5, 1)),
    'apiserver.read.p99': series(jitter(0.05, 0.05), jitter(0.3, 0.2)),
    'apiserver.requests': series(count(load), count(load * 0.6)),
    'apiserver.5xx': series(count(2), count(load * 0.06)),
    'apiserver.429': series(
      () => (random() < 0.02 ? 5 : 0),
      () => 0,
    ),
    'webhook.requests': series(count(webhookCalls), count(webhookCalls)),
    'webhook.rejections': series(count(3), count(3)),
    'webhook.failures': series(() => 0, count(webhookCalls * 0.9)),
    'webhook.p99': series(jitter(0.02, 0.04), jitter(9.8, 0.2)),
    'nodes.total': series(
      () => nodes,
      () => nodes,
    ),
    'nodes.notready': series(
      () => (random() < 0.003 ? 1 : 0),
      () => Math.round(nodes * 0.1),
    ),
    'nodes.replaced': series(
      () => (random() < 0.003 ? 1 : 0),
      () => 0,
    ),
    'nodes.interrupted': series(
      () => 0,
      () => 0,
    ),
    'nodes.scaledin': series(
      () => 0,
      () => 0,
    ),
  };
}

/**
 * Datapoints for every metric a poll of cluster `index` reads, minute by minute up to `end`: a max-combined signal puts
 * its value on its first metric and a little less on the others (so every query returns a full series, as the
 * vended EKS metrics do), a sum-combined one puts it on its first metric and zero on the others.
 */
function clusterDatums(index: number, end: number, samples: number): Map<string, MetricDatum[]> {
  const signals = clusterSignals(index, samples);
  const byNamespace = new Map<string, MetricDatum[]>();
  const start = end - (samples - 1) * 60_000;
  for (const source of signalSources(fleetCluster(index))) {
    const values = signals[source.signal];
    source.metrics.forEach((metric, part) => {
      const data = byNamespace.get(metric.namespace) ?? [];
      byNamespace.set(metric.namespace, data);
      const dimensions = Object.entries(metric.dimensions).map(([Name, Value]) => ({ Name, Value }));
      const share = part === 0 ? 1 : source.combine === 'max' ? 0.8 : 0;
      values.forEach((value, i) => {
        if (value === null) return;
        data.push({
          MetricName: metric.metricName,
          Dimensions: dimensions,
          Timestamp: new Date(start + i * 60_000),
          Value: value * share,
        });
      });
    });
  }
  return byNamespace;
}

/**
 * The plan of a generated fleet, with the default rules, as the poller would build it: which clusters the worst minute
 * reads in full, which by a minute read, and how far back each goes.
 */
export function fleetPlan(size: number): WatchPlan {
  return buildPlan({
    ruleSet: compileRuleSet([], 'rules'),
    clusters: fleetClusters(size).map((c) => c.name),
    maintenance: [],
    stepSeconds: 60,
  });
}

/**
 * How far back the worst minute at FLEET_STEP_AT, every tripwire armed, reads each cluster of `plan`: the full
 * lookback for the clusters due on the slow cadence, the minute read's for the others.
 */
export function worstMinuteSamples(plan: WatchPlan): (index: number) => number {
  const { full } = dueReads(plan, FLEET_STEP_AT, new Set(plan.clusters.map((c) => c.name)), []);
  const readInFull = new Set(full);
  return (index) => (readInFull.has(fleetCluster(index).name) ? plan.lookback : plan.minuteRead.lookback);
}

/**
 * Put the tripwire alarms of clusters `from` to `to` (exclusive) in ALARM since the outage began, as a regional metric
 * delay holds every one of them in the worst minute: what the poll's refresh reads back.
 */
export function armFleetTripwires(server: CloudWatchServer, from: number, to: number): void {
  for (let index = from; index < to; index++) {
    const since = new Date(FLEET_OUTAGE_STARTS);
    server.setAlarm({
      AlarmName: tripwireAlarmName(FLEET_DEPLOYMENT, fleetCluster(index).name),
      StateValue: 'ALARM',
      StateReason: 'Threshold Crossed: no datapoints were received for 1 period',
      StateTransitionedTimestamp: since,
      StateUpdatedTimestamp: since,
    });
  }
}

/**
 * The tripwire states the table holds in the worst minute, as the poll reads them: every alarm's ALARM recorded by
 * its state-change event a few seconds after the outage began, which the refresh finds unchanged and far from its
 * expiry.
 */
export function fleetRecordedTripwires(size: number): ReadonlyMap<string, RecordedTripwireState> {
  const changedAt = FLEET_OUTAGE_STARTS;
  const expiresAt = tripwireStateExpiresAt(changedAt, changedAt + EVENT_DELIVERED_AFTER_MS);
  return new Map(fleetClusters(size).map((c) => [c.name, { state: 'ALARM', changedAt, expiresAt }]));
}

/** How long after an alarm's state change its event is recorded: EventBridge delivers within seconds. */
const EVENT_DELIVERED_AFTER_MS = 5_000;

/**
 * Load the history of clusters `from` to `to` (exclusive), `samples` minutes up to `end` (or as many as `samples`
 * says for each cluster), into the loopback CloudWatch; returns the datapoints stored.
 */
export function loadFleet(
  server: CloudWatchServer,
  from: number,
  to: number,
  end: number,
  samples: number | ((index: number) => number),
): number {
  let datapoints = 0;
  for (let index = from; index < to; index++) {
    const count = typeof samples === 'number' ? samples : samples(index);
    for (const [namespace, data] of clusterDatums(index, end, count)) {
      server.put({ Namespace: namespace, MetricData: data });
      datapoints += data.length;
    }
  }
  return datapoints;
}
