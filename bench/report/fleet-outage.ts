import { incidentsPerMark } from '../../aws/dynamodb/step-ledger.ts';
import { POLLER_TIMEOUT } from '../../infra/ops-stack.ts';
import { LONE_CLUSTER, type PagedMessage } from '../../support/fleet-outage.ts';
import type { FleetOutageRow, FunctionFigures } from '../fleet-outage.ts';
import type { BenchResults } from '../report.ts';
import { count, mb, ms, seconds, table } from './markdown.ts';

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

/** The fleet's page and resolve (the first `[PAGE]` and `[RESOLVED]` of the paging topic) of a case, if they left. */
function fleetMessages(row: FleetOutageRow) {
  const first = (tag: string) => row.published?.find((message) => message.subject.startsWith(tag));
  return {
    page: first('[PAGE]'),
    resolve: first('[RESOLVED]'),
    lone: row.published?.find((message) => message.subject.includes(LONE_CLUSTER)),
  };
}

/** How much later a message left in the throttled case than without the line: seconds, and polls rolled forward. */
function lateBy(throttled?: PagedMessage, unthrottled?: PagedMessage): string {
  if (!throttled) return 'never';
  if (!unthrottled) return '–';
  const seconds = (throttled.publishedAt - unthrottled.publishedAt) / 1000;
  const where = `step ${throttled.step}${throttled.attempt > 0 ? ` (Lambda's retry ${throttled.attempt})` : ''}`;
  // To a tenth of a second: the two runs' clocks agree no closer, and a message a hair earlier is not earlier.
  return `${Math.max(0, seconds).toFixed(1)} s, by the poll of ${where}`;
}

/**
 * The outage at DynamoDB's throughput line (`npx tsx bench/fleet-outage.ts --throttled`): how much later the fleet's
 * page and resolve leave than without it, and the requests the line refused, by partition key.
 */
export function fleetOutageThrottledSection({ fleetOutageThrottled: rows }: BenchResults): string[] {
  const throttled = rows?.find((row) => row.throughputLine !== undefined);
  const unthrottled = rows?.find((row) => row.throughputLine === undefined);
  if (!throttled?.throughputLine) return [];
  const line = throttled.throughputLine;
  const [late, early] = [fleetMessages(throttled), fleetMessages(unthrottled ?? throttled)];
  const refused = Object.entries(throttled.throttledRequests ?? {}).sort(([, a], [, b]) => b - a);
  const failedPolls = (throttled.polls ?? []).filter((poll) => poll.error !== undefined).length;
  const unfinishedPolls = (throttled.polls ?? []).filter((poll) => poll.unfinished !== undefined).length;
  const time = throttled.pollerTimeoutMs
    ? ` Its poller had ${seconds(throttled.pollerTimeoutMs)} of its ${seconds(POLLER_TIMEOUT.toMilliseconds())}: the timeout less what the fan-out coordinator's worst minute of 10,000 clusters (section 4) takes beyond this fleet's paging poll, so that its writes get the time they would get at 10,000, marked every ${incidentsPerMark(line.partitionWriteUnits)} incidents as ${incidentsPerMark()} are at DynamoDB's line. A poll out of time stops at a mark, and the next one saves the rest.`
    : '';
  return [
    '### At the throughput line',
    '',
    `The same outage of ${count(throttled.clusters)} clusters with the loopback DynamoDB holding the line DynamoDB holds and dynalite does not (support/dynamodb-throughput-proxy.ts), scaled to the fleet: ${count(line.partitionWriteUnits)} write and ${count(line.partitionReadUnits)} read units a second a partition key, DynamoDB's 1,000 and 3,000 times ${count(throttled.clusters)} / 10,000, so that each partition the fleet grows meets it as at 10,000 clusters at DynamoDB's own.${time} Run alone (a few minutes): \`npx tsx bench/fleet-outage.ts --throttled ${throttled.clusters}\`.`,
    '',
    table(
      [
        'case',
        'completed',
        'paged as expected',
        'polls',
        'failed polls',
        'polls out of time saving',
        "fleet's page later by",
        "fleet's resolve later by",
        "lone cluster's page later by",
      ],
      [
        [
          throttled.faults,
          throttled.completed ? 'yes' : `no: ${throttled.error ?? ''}`,
          throttled.pagedAsExpected ? 'yes' : 'no',
          throttled.polls?.length ?? 0,
          failedPolls,
          unfinishedPolls,
          lateBy(late.page, early.page),
          lateBy(late.resolve, early.resolve),
          lateBy(late.lone, early.lone),
        ],
      ],
    ),
    '',
    "Requests the line refused, by operation and the partition key they met it at (`table` for the table in all), each refusal counted: the SDK retries a refused request (at most five attempts) while its client's retry quota lasts, and not after.",
    '',
    table(
      ['request', 'refused'],
      refused.map(([request, n]) => [request, count(n)]),
    ),
    '',
  ];
}
