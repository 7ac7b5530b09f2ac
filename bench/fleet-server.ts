/**
 * A child process that holds a generated fleet in the loopback CloudWatch, so that the poll it serves is measured in
 * a process of its own. Messages: `{ kind: 'load', size }` grows the stored fleet to `size` clusters (cluster i is
 * the same in every size, so growing only adds clusters); `{ kind: 'stop' }` ends it.
 */
import { startCloudWatchServer } from '../test/support/cloudwatch-server.ts';
import { FLEET_STEP_AT, loadFleet } from './fleet-generator.ts';

export type FleetServerRequest = { kind: 'load'; size: number; samples: number } | { kind: 'stop' };
export type FleetServerReply =
  | { kind: 'ready'; endpoint: string }
  | { kind: 'loaded'; size: number; datapoints: number; ms: number; getMetricDataCalls: number };

/** The round trip to a region that every GetMetricData call pays, as the issue specifies. */
export const INJECTED_LATENCY_MS = 50;

const server = await startCloudWatchServer({ latencyMs: INJECTED_LATENCY_MS, acceptVendedNamespaces: true });
const reply = (message: FleetServerReply) => process.send?.(message);
let loaded = 0;
let stored = 0;

process.on('message', (message: FleetServerRequest) => {
  if (message.kind === 'stop') {
    void server.close().then(() => process.exit(0));
    return;
  }
  const started = performance.now();
  stored += loadFleet(server, loaded, message.size, FLEET_STEP_AT, message.samples);
  loaded = message.size;
  reply({
    kind: 'loaded',
    size: loaded,
    datapoints: stored,
    ms: performance.now() - started,
    getMetricDataCalls: server.calls.GetMetricData ?? 0,
  });
});
// If the benchmark dies, so does its server, rather than holding gigabytes of datapoints for no one.
process.on('disconnect', () => process.exit(0));
reply({ kind: 'ready', endpoint: server.endpoint });
