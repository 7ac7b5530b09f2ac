import type { FleetOutageRow } from '../fleet-outage.ts';
import type { BenchResults } from '../report.ts';
import { count, mb, ms, table } from './markdown.ts';

/**
 * The fleet-scale fault test: every cluster of the fleet failing in the same minute, each case's time, CPU and peak
 * memory, and the slowest poll and the poll with the most memory, beside the poller's limits.
 */
export function fleetOutageSection({ fleetOutage: rows }: BenchResults): string[] {
  if (!rows || rows.length === 0) return [];
  const slowest = (row: FleetOutageRow) => Math.max(0, ...(row.polls ?? []).map((p) => p.ms));
  const peak = (row: FleetOutageRow, of: 'peakHeapMb' | 'peakRssMb') =>
    Math.max(0, ...(row.polls ?? []).map((p) => p[of]));
  return [
    '## Fleet outage',
    '',
    `Every cluster of the fleet fails in the same minute (the case without faults at ${count(rows[0]?.clusters ?? 0)} clusters, each fault case at the size it names): the polls run it over the DynamoDB stores (dynalite in a process of its own) and the loopback SNS until the fleet's page, its resolve and an unrelated cluster's page an hour later have gone out, in one process with the poller's heap (bench/fleet-outage.ts). Memory is sampled during each poll; the poller has 50 s and 512 MB.`,
    '',
    table(
      [
        'faults',
        'clusters',
        'completed',
        'paged as expected',
        'polls',
        'total',
        'CPU',
        'slowest poll',
        'peak heap of a poll',
        'peak RSS of a poll',
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
        row.cpuMs === undefined ? '–' : ms(row.cpuMs),
        ms(slowest(row)),
        mb(peak(row, 'peakHeapMb')),
        mb(peak(row, 'peakRssMb')),
        row.withinLimits ? 'yes' : 'no',
        row.dynalitePeakRssMb === undefined ? '–' : mb(row.dynalitePeakRssMb),
        row.loadAverage === undefined ? '–' : row.loadAverage.toFixed(1),
      ]),
    ),
    '',
  ];
}
