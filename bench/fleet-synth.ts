import { CLOUDFORMATION_QUOTAS } from '../infra/deployment-quotas.ts';
import { AWS_PRICES } from '../shared/pricing/aws-prices.ts';
import { FLEET_ACCOUNTS, FLEET_REGIONS, synthesizeFleet } from '../support/generated-fleet.ts';

/** The generated fleets synthesized whole: how long synth takes, and how close the largest stack comes to the quotas. */
export const SYNTH_FLEET_SIZES = [1_000, 10_000] as const;

export interface FleetSynthRow {
  readonly clusters: number;
  readonly regions: number;
  readonly accounts: number;
  readonly stacks: number;
  readonly synthSeconds: number;
  /** The stack with the largest template, and its resource count. */
  readonly largest: { readonly stack: string; readonly bytes: number; readonly resources: number };
  /** The most resources any one stack holds. */
  readonly mostResources: number;
  /** Alarm metrics per tripwire alarm: what CloudWatch bills each month. */
  readonly alarmMetricsPerCluster: number;
  /** The tripwire's alarm metrics, plus its state changes forwarded across Regions, per cluster-month. */
  readonly tripwireUsdPerClusterMonth: number;
}

/**
 * Synthesize each generated fleet (support/generated-fleet.ts: three Regions, twenty accounts) as `cdk synth`
 * would, without bundling, and price the tripwire design per cluster-month: its alarm metrics at the standard alarm
 * price, and, for the two thirds of the clusters outside the ops Region, each state change as an event forwarded
 * across Regions (`tripwireChangesPerClusterMonth`, from the quiet week).
 */
export function measureFleetSynth(tripwireChangesPerClusterMonth: number): FleetSynthRow[] {
  return SYNTH_FLEET_SIZES.map((size) => {
    const fleet = synthesizeFleet(size);
    const largest = fleet.footprints.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const alarmMetrics = fleet.stacks.tripwires.flatMap((stack) =>
      stack.tripwires.alarms.map((alarm) => (alarm.node.defaultChild as { metrics?: unknown[] }).metrics?.length ?? 0),
    );
    // The metrics with a MetricStat are billed; the expression that joins them is not.
    const alarmMetricsPerCluster = Math.max(0, ...alarmMetrics) - 1;
    const outsideOps = (FLEET_REGIONS.length - 1) / FLEET_REGIONS.length;
    return {
      clusters: size,
      regions: FLEET_REGIONS.length,
      accounts: FLEET_ACCOUNTS,
      stacks: fleet.footprints.length,
      synthSeconds: fleet.synthMs / 1000,
      largest: { stack: largest.stackName, bytes: largest.bytes, resources: largest.resources },
      mostResources: Math.max(...fleet.footprints.map((f) => f.resources)),
      alarmMetricsPerCluster,
      tripwireUsdPerClusterMonth:
        alarmMetricsPerCluster * AWS_PRICES.standardAlarmMetricMonth.usd +
        outsideOps * tripwireChangesPerClusterMonth * AWS_PRICES.customEvent.usd,
    };
  });
}

/** Section 6 of bench/RESULTS.md. */
export function fleetSynthSection(
  rows: readonly FleetSynthRow[],
  table: (header: readonly string[], rows: readonly (readonly string[])[]) => string,
): string[] {
  return [
    '## 6. Synth of generated fleets: the largest stack against CloudFormation’s quotas',
    '',
    `Every stack of the app for fleets over ${rows[0]?.regions ?? '–'} Regions and ${rows[0]?.accounts ?? '–'} accounts, bundling left out. Quotas: ${CLOUDFORMATION_QUOTAS.templateBytes.toLocaleString('en-US')} template bytes and ${CLOUDFORMATION_QUOTAS.resources} resources a stack.`,
    '',
    table(
      [
        'clusters',
        'stacks',
        'synth',
        'largest template',
        'its resources',
        'most resources',
        'tripwire per cluster-month',
      ],
      rows.map((row) => [
        row.clusters.toLocaleString('en-US'),
        String(row.stacks),
        `${row.synthSeconds.toFixed(1)} s`,
        `${row.largest.stack}, ${Math.round(row.largest.bytes / 1024)} KiB`,
        String(row.largest.resources),
        String(row.mostResources),
        `$${row.tripwireUsdPerClusterMonth.toFixed(3)} (${row.alarmMetricsPerCluster} alarm metrics)`,
      ]),
    ),
  ];
}
