import type { FleetScaleRow } from '../fleet-scale.ts';
import type { BenchResults } from '../report.ts';
import { count, mb, ms, table } from './markdown.ts';

/** Section 4: the worst minute of generated fleets against the GetMetricData quotas. */
export function fleetSection(results: BenchResults): string[] {
  return [
    '## 4. Fleet scale: the worst minute, every tripwire armed, against GetMetricData quotas, 50 ms per call',
    '',
    'Every cluster is read in the same minute, as when a regional metric delay arms every tripwire: those due on the slow cadence in full, the others by a minute read (the short windows only). The loopback CloudWatch enforces 50 TPS, 180,000 datapoints per second for a StartTime within three hours and 396,000 for older ones, and answers over them with Throttling; each poll runs in its own process with the heap of a ' +
      `${results.fleet[0]?.completesInMemoryMb?.memoryMb ?? '–'} MB function.`,
    '',
    table(
      [
        'clusters',
        'full / minute reads',
        'wall time',
        'GetMetricData calls',
        'datapoints requested',
        'throttled calls',
        'quota floor',
        'CloudWatch reads',
        'engine and store',
        'poll CPU time',
        'peak RSS',
        'load average',
      ],
      results.fleet.map((row) => {
        const f = row.figures;
        if (!f) return [count(row.clusters), row.error ?? 'failed', '', '', '', '', '', '', '', '', '', ''];
        return [
          count(row.clusters),
          `${count(f.fullReads)} / ${count(f.minuteReads)}`,
          ms(f.pollMs),
          count(f.getMetricDataCalls),
          count(f.datapointsRequested),
          String(row.quota?.throttled ?? '–'),
          row.quota ? `${row.quota.floorSeconds.toFixed(1)} s` : '–',
          ms(f.readMs),
          ms(f.engineMs),
          ms(f.cpuMs),
          mb(f.peakRssMb),
          row.loadAverage?.toFixed(1) ?? '–',
        ];
      }),
    ),
    '',
    ...refreshSection(results.fleet),
    '',
    ...fanOutSection(results.fleet),
    '',
    "Datapoints one read of one cluster could return (the datapoints-per-second quota counts them), for the example configuration's production cluster:",
    '',
    table(
      ['read', 'every metric, longest window', 'now', 'metrics × samples'],
      [
        [
          'armed cluster, between its full reads (minute read)',
          count(results.readSizes.before),
          count(results.readSizes.armed),
          `${results.readSizes.metrics.minute} × ${results.readSizes.samples.minute} at most, each signal over its own short window`,
        ],
        [
          'quiet cluster on the slow cadence (full read)',
          count(results.readSizes.before),
          count(results.readSizes.quiet),
          `${results.readSizes.metrics.full} × ${results.readSizes.samples.full}`,
        ],
      ],
    ),
    '',
    `Datapoints held by the loopback CloudWatch (the history each worst minute reads): ${results.fleet.map((r) => `${count(r.clusters)} clusters ${count(r.datapointsStored)}`).join(', ')}.`,
    '',
  ];
}

/**
 * The tripwire refresh the worst minute's step runs beside its reads, as it opens a slow cycle: in the one invocation
 * and in the fan-out's coordinator. Each poll's wall time above includes it, as the poll waits for it after delivery.
 */
function refreshSection(rows: readonly FleetScaleRow[]): string[] {
  const refreshed = rows.filter((r) => r.figures?.refresh);
  if (refreshed.length === 0) return [];
  const throttled = (quota: FleetScaleRow['quota']) => String(quota?.describeAlarmsThrottled ?? '–');
  return [
    "The step opens a slow cycle, so each poll also reads every tripwire alarm back (DescribeAlarms, 100 alarms a page, paced at 8 calls a second against the loopback's 9 per Region), beside its reads, and writes with a conditional put (dynalite, in a process of its own) only the states that differ from those its step read from the table or would expire before a later refresh could renew them. The table holds what the alarms' events recorded when the outage began, so a state needs writing only where it changed since; the poll waits for the refresh only after delivery, and its wall time above includes it.",
    '',
    table(
      [
        'clusters',
        'alarms read',
        'DescribeAlarms pages took',
        'throttled',
        'states written',
        'refresh done after',
        'the same, fanned out',
      ],
      refreshed.map((row) => {
        const r = row.figures?.refresh;
        const fanned = row.fanOut?.figures?.refresh;
        if (!r) return [count(row.clusters), '', '', '', '', '', ''];
        return [
          count(row.clusters),
          count(r.states),
          ms(r.describeMs),
          throttled(row.quota),
          row.figures?.refreshFailure ?? count(r.written),
          ms(r.refreshMs),
          fanned
            ? `${ms(fanned.describeMs)} and ${ms(fanned.refreshMs)}, ${throttled(row.fanOut?.quota)} throttled`
            : '–',
        ];
      }),
    ),
  ];
}

/**
 * The worst minute fanned out, beside the one invocation: the coordinator's wall time, and each shard's, with its CPU
 * time and what that CPU time becomes on a 512 MB function's share of a vCPU (1,769 MB is one,
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html).
 */
function fanOutSection(rows: readonly FleetScaleRow[]): string[] {
  const fanned = rows.filter((r) => r.fanOut);
  if (fanned.length === 0) return [];
  const vcpu = (memoryMb: number) => memoryMb / 1769;
  return [
    "The same worst minute fanned out (a fleet larger than one shard): the poller sends one shard per 2,000 clusters, one process per shard reads and evaluates it at a fifth of the quotas (the workers in flight), and the poller runs the step over their findings. All shards ran at once on this machine's two cores, so their wall times overlap and stretch; their CPU times are their own.",
    '',
    table(
      [
        'clusters',
        'shards',
        'coordinator wall time',
        'coordinator CPU',
        'slowest shard wall time',
        'shard CPU (max)',
        'shard CPU at 512 MB (0.29 vCPU)',
        'GetMetricData calls',
        'throttled calls',
        'quota floor',
        'peak RSS coordinator / shard',
        'pages',
      ],
      fanned.map((row) => {
        const f = row.fanOut?.figures;
        if (!f) return [count(row.clusters), row.fanOut?.error ?? 'failed', '', '', '', '', '', '', '', '', '', ''];
        const memoryMb = row.completesInMemoryMb?.memoryMb ?? 512;
        const maxCpu = Math.max(...f.shards.map((s) => s.cpuMs));
        return [
          count(row.clusters),
          String(f.shards.length),
          ms(f.coordinatorMs),
          ms(f.coordinatorCpuMs),
          ms(Math.max(...f.shards.map((s) => s.wallMs))),
          ms(maxCpu),
          ms(maxCpu / vcpu(memoryMb)),
          count(row.fanOut?.quota?.getMetricDataCalls ?? 0),
          String(row.fanOut?.quota?.throttled ?? '–'),
          row.fanOut?.quota ? `${row.fanOut.quota.floorSeconds.toFixed(1)} s` : '–',
          `${mb(f.coordinatorPeakRssMb)} / ${mb(Math.max(...f.shards.map((s) => s.peakRssMb)))}`,
          `${f.pages} (${count(f.pagedClusters)} clusters)`,
        ];
      }),
    ),
  ];
}
