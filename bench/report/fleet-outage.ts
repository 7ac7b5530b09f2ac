import type { FleetOutageRow, FunctionFigures } from '../fleet-outage.ts';
import type { BenchResults } from '../report.ts';
import { count, mb, ms, table } from './markdown.ts';

/**
 * The fleet-scale fault test: every cluster of the fleet but one failing in the same minute, through the deployed
 * functions; each case's time, and each function's slowest invocation and peak memory beside its limits.
 */
export function fleetOutageSection({ fleetOutage: rows }: BenchResults): string[] {
  if (!rows || rows.length === 0) return [];
  const functionsOf = (row: FleetOutageRow) => (row.functions ?? []).filter((f) => f.invocations > 0);
  return [
    '## Fleet outage',
    '',
    "Every cluster of the deployment but one fails in the same minute, and the last an hour after the fleet's outage ended: the deployed functions run it, each in a process of its own with its function's heap (poller, shard workers when the fleet is larger than one shard, tripwire fed the alarms' state changes, delivery to PagerDuty), over dynalite in a process of its own and the loopback CloudWatch, SNS, SQS, Secrets Manager and PagerDuty, until the fleet's page, its resolve and the last cluster's page have been delivered (bench/fleet-outage.ts). Memory is sampled during each invocation.",
    '',
    table(
      [
        'faults',
        'clusters',
        'completed',
        'paged as expected',
        'polls',
        'total',
        'within limits',
        'dynalite peak RSS',
        'load average',
      ],
      rows.map((row) => [
        row.faults,
        count(row.clusters),
        row.completed ? 'yes' : `no: ${row.error ?? ''}`,
        row.pagedAsExpected ? 'yes' : 'no',
        row.polls?.length ?? 0,
        row.totalMs === undefined ? '–' : ms(row.totalMs),
        row.withinLimits ? 'yes' : 'no',
        row.dynalitePeakRssMb === undefined ? '–' : mb(row.dynalitePeakRssMb),
        row.loadAverage === undefined ? '–' : row.loadAverage.toFixed(1),
      ]),
    ),
    '',
    'Each function in each case: its invocations, the slowest, the most CPU time one took (its process, on a machine that shares two cores among every function, the loopback servers and dynalite), and the most memory its process held, beside its limits.',
    '',
    table(
      ['faults', 'function', 'limits', 'invocations', 'failed', 'slowest', 'most CPU', 'peak heap', 'peak RSS'],
      rows.flatMap((row) =>
        functionsOf(row).map((f: FunctionFigures) => [
          row.faults,
          f.function,
          `${ms(f.timeoutMs)}, ${mb(f.memoryMb)}`,
          count(f.invocations),
          f.failed,
          ms(f.slowestMs),
          ms(f.mostCpuMs),
          mb(f.peakHeapMb),
          mb(f.peakRssMb),
        ]),
      ),
    ),
    '',
    ...hotPartitions(rows),
  ];
}

/**
 * The partition keys that took the most write units within one poll (the poll's writes and the other functions' beside
 * it), against the 1,000 a second DynamoDB serves one partition: the least time those writes take in AWS, where
 * dynalite throttles nothing.
 */
function hotPartitions(rows: readonly FleetOutageRow[]): string[] {
  const hot = rows.flatMap((row) => (row.hottestPartitions ?? []).map((partition) => ({ row, partition })));
  if (hot.length === 0) return [];
  return [
    "The partitions each case wrote hardest within one poll, by request units (the meter in front of dynalite, as DynamoDB bills them; `byDay:` is the index's partition of that value, `byDay:?` entries removed or rewritten by requests that do not name their value). DynamoDB serves one partition at most 1,000 write units a second (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.Partitions.html), which dynalite does not enforce: the last column is the least time those writes take in AWS, before DynamoDB splits a hot partition.",
    '',
    table(
      [
        'faults',
        'clusters',
        'partition',
        'write units in one poll',
        'at step',
        'that poll took here',
        'at 1,000 a second',
      ],
      hot.map(({ row, partition }) => [
        row.faults,
        count(row.clusters),
        partition.partition,
        count(Math.round(partition.writeUnits)),
        String(partition.step),
        ms(partition.pollMs),
        `${(partition.writeUnits / 1000).toFixed(1)} s`,
      ]),
    ),
    '',
  ];
}
