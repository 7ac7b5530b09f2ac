import { INCIDENTS_PER_CLUSTER_MONTH } from '../cost-model.ts';
import { MAX_COST_PER_CLUSTER } from '../goals.ts';
import type { BenchResults } from '../report.ts';
import { SMALL_FLEET_SETTINGS } from '../small-fleet.ts';
import { costItems, count, dollars, min, ms, table } from './markdown.ts';

/** Section 3: cost per cluster-month, item by item, fleet by fleet. */
export function costSection(results: BenchResults): string[] {
  const { cost, footprint } = results;
  return [
    '## 3. Cost per cluster-month',
    '',
    `Reference cluster: ${cost.referenceCluster} from config/sentinel.example.json, ${cost.metricsPerClusterPoll} metrics per poll (${Object.entries(
      cost.metricsPerCluster,
    )
      .map(([c, n]) => `${c}: ${n}`)
      .join(
        ', ',
      )}). Quiet-week polled share ${(cost.quietPolledShare * 100).toFixed(1)} % of cluster-minutes; ${cost.tripwireChangesPerClusterMonth.toFixed(0)} tripwire state changes per cluster-month; ${count(cost.tripwireRefreshesPerMonth)} tripwire refreshes a month, writing ${cost.tripwireRefreshWritesPerClusterMonth.toFixed(0)} states per cluster-month (a renewal before each expiry, and at most the changes); ${count(cost.invocationsPerMonth)} scheduled polls a month.`,
    '',
    table(
      [
        'clusters',
        'goal per cluster-month',
        'defaults: per month',
        'defaults: per cluster-month',
        'small-fleet settings: per month',
        'small-fleet settings: per cluster-month',
        'per cluster-month if every metric were read every minute (GetMetricData only)',
      ],
      cost.fleets.map((f) => {
        const small = results.smallFleetCost.fleets.find((s) => s.clusters === f.clusters);
        const goal = MAX_COST_PER_CLUSTER[f.clusters];
        return [
          count(f.clusters),
          goal === undefined ? '–' : dollars(goal),
          dollars(f.monthly),
          dollars(f.perCluster),
          small ? dollars(small.monthly) : '–',
          small ? dollars(small.perCluster) : '–',
          dollars(f.everyMinutePerCluster),
        ];
      }),
    ),
    '',
    `The small-fleet settings: ${Object.entries(SMALL_FLEET_SETTINGS)
      .map(([key, value]) => `\`${key}: ${JSON.stringify(value)}\``)
      .join(
        ', ',
      )} ([docs/deploy.md](../docs/deploy.md#what-it-costs) says what each gives up). Every resource of the synthesized templates is priced through [bench/resource-pricing.ts](resource-pricing.ts), at the prices of [shared/pricing/aws-prices.ts](../shared/pricing/aws-prices.ts).`,
    '',
    'With the defaults:',
    '',
    costItems(cost),
    '',
    'With the small-fleet settings:',
    '',
    costItems(results.smallFleetCost),
    '',
    'The cadence trade-off: what a quiet cluster is read for (CloudWatch reads at the quiet week’s polled share, plus its tripwire alarm) against how late the corpus’s pages come, with the tripwires and without them (`poll.tripwire.enabled: false`):',
    '',
    table(
      [
        'poll.every',
        'tripwire',
        'quiet polled share',
        'CloudWatch per cluster-month',
        'page-level incidents detected',
        'median latency',
        'worst latency',
        'false pages',
      ],
      cost.cadences.map((c) => [
        c.every,
        c.tripwire ? 'yes' : 'none',
        `${(c.quietPolledShare * 100).toFixed(1)} %`,
        dollars(c.cloudWatchPerClusterMonth),
        `${c.detected} of ${c.incidents}`,
        min(c.medianLatencyMin),
        min(c.worstLatencyMin),
        c.falsePages,
      ]),
    ),
    '',
    `Measured on the deployed poller handler (${footprint.invocations} scheduled polls of a ${footprint.clusters}-cluster deployment, ${footprint.polledPerInvocation.toFixed(1)} clusters read per poll on average, against dynalite behind a capacity meter). The ${footprint.quietPoll.polls} polls before one cluster's outage price every poll of the month:`,
    '',
    table(
      ['DynamoDB operation', 'calls per quiet poll', 'RRU per quiet poll', 'WRU per quiet poll'],
      Object.entries(footprint.quietPoll.byOperation).map(([op, u]) => [
        op,
        u.calls.toFixed(2),
        u.readUnits.toFixed(2),
        u.writeUnits.toFixed(2),
      ]),
    ),
    '',
    `The outage's ${footprint.incident.polls} polls (its tripwire armed, its incident opened and paged) took ${Math.round(footprint.incident.readUnits)} RRU and ${Math.round(footprint.incident.writeUnits)} WRU more than as many quiet polls: each of the ${INCIDENTS_PER_CLUSTER_MONTH.toFixed(1)} incidents a cluster-month the model prices adds that. Log bytes per poll: ${Math.round(footprint.logBytesPerInvocation)} (EMF), median handler duration on loopback: ${ms(footprint.medianDurationMs)}, a tripwire event: ${footprint.tripwireEvent.writeUnits} WRU.`,
    '',
  ];
}
