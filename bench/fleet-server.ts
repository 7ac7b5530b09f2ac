/**
 * A child process that holds a generated fleet in the loopback CloudWatch, so that the poll it serves is measured in
 * a process of its own. Messages: `{ kind: 'load', size }` grows the stored fleet to `size` clusters (cluster i is
 * the same in every size, so growing only adds clusters), each with the history the worst minute reads of it and its
 * tripwire alarm in ALARM; `{ kind: 'quota' }` answers what the quotas admitted and throttled since the last load;
 * `{ kind: 'reset' }` starts counting them afresh, for another poll of the same fleet; `{ kind: 'stop' }` ends it.
 */
import { startCloudWatchServer } from '../support/cloudwatch-server.ts';
import {
  armFleetTripwires,
  FLEET_POLL_AT,
  FLEET_STEP_AT,
  fleetPlan,
  loadFleet,
  worstMinuteSamples,
} from '../support/fleet-generator.ts';

export type FleetServerRequest =
  | { kind: 'load'; size: number }
  | { kind: 'quota' }
  | { kind: 'reset' }
  | { kind: 'stop' };
export type FleetServerReply =
  | { kind: 'ready'; endpoint: string }
  | { kind: 'loaded'; size: number; datapoints: number; ms: number }
  | {
      kind: 'quota';
      datapoints: number;
      throttled: number;
      getMetricDataCalls: number;
      /** The least time the admitted calls could take under the quotas. */
      floorSeconds: number;
      /** DescribeAlarms calls refused by its rate quota: the refresh's pacing failing. */
      describeAlarmsThrottled: number;
    };

/** The round trip to a region that every GetMetricData call pays, as the issue specifies. */
export const INJECTED_LATENCY_MS = 50;

// GetMetricData's quotas as AWS documents them (the server's defaults), on a clock at the poll's minute, so that
// the reads of the step fall in the same datapoint tiers as they would on the day.
const server = await startCloudWatchServer({
  latencyMs: INJECTED_LATENCY_MS,
  acceptVendedNamespaces: true,
  now: () => FLEET_POLL_AT,
});
const reply = (message: FleetServerReply) => process.send?.(message);
let loaded = 0;
let stored = 0;
/** GetMetricData calls before the current size's poll. */
let callsBefore = 0;

process.on('message', (message: FleetServerRequest) => {
  if (message.kind === 'stop') {
    void server.close().then(() => process.exit(0));
    return;
  }
  if (message.kind === 'quota') {
    const { throttled } = server.quota;
    reply({
      kind: 'quota',
      datapoints: server.quota.datapoints,
      throttled: throttled['transactions per second'] + throttled['datapoints per second'],
      getMetricDataCalls: (server.calls.GetMetricData ?? 0) - callsBefore,
      floorSeconds: server.quota.floorSeconds(
        (server.calls.GetMetricData ?? 0) -
          callsBefore -
          throttled['transactions per second'] -
          throttled['datapoints per second'],
      ),
      describeAlarmsThrottled: server.describeAlarmsQuota.throttled,
    });
    return;
  }
  if (message.kind === 'reset') {
    countAfresh();
    reply({ kind: 'loaded', size: loaded, datapoints: stored, ms: 0 });
    return;
  }
  const started = performance.now();
  stored += loadFleet(server, loaded, message.size, FLEET_STEP_AT, worstMinuteSamples(fleetPlan(message.size)));
  armFleetTripwires(server, loaded, message.size);
  loaded = message.size;
  countAfresh();
  reply({ kind: 'loaded', size: loaded, datapoints: stored, ms: performance.now() - started });
});
/** Each poll is counted on its own. */
function countAfresh(): void {
  server.quota.reset();
  server.describeAlarmsQuota.reset();
  server.getMetricDataRequests.length = 0;
  callsBefore = server.calls.GetMetricData ?? 0;
}

// If the benchmark dies, so does its server, rather than holding gigabytes of datapoints for no one.
process.on('disconnect', () => process.exit(0));
reply({ kind: 'ready', endpoint: server.endpoint });
