import { type CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { tripwireAlarmPrefix, tripwireClusterOf } from '../../shared/pipeline/alarm-names.ts';
import type { TripwireAlarmState, TripwireAlarms } from '../../shared/pipeline/ports.ts';
import { QuotaPacer } from '../concurrency.ts';
import { PACING_MARGIN_MS, sendPaced } from './paced-send.ts';

/** What this module sends: DescribeAlarms by the deployment's tripwire prefix, once per Region per slow cycle. */
export const IAM_ACTIONS = ['cloudwatch:DescribeAlarms'] as const;

/**
 * DescribeAlarms' largest page, MaxRecords "Valid Range: Minimum value of 1. Maximum value of 100":
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_DescribeAlarms.html
 */
export const DESCRIBE_ALARMS_MAX_RECORDS = 100;

/**
 * DescribeAlarms calls started per second in each Region. CloudWatch allows "Rate of DescribeAlarms requests: 9 per
 * second per account and Region (adjustable)"
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_limits.html): the one left is for
 * `sentinel doctor` and the command line, which read the same account's alarms and would otherwise be throttled by a
 * refresh, or throttle it. At 8 a second the 100 pages of 10,000 alarms in one Region take about 14 s.
 */
const CALLS_PER_SECOND = 8;

/**
 * The deployment's tripwire alarms, read with DescribeAlarms (AlarmNamePrefix, every page) in each Region that holds
 * some: a tripwire alarm lives in its cluster's Region (`default` is the function's own). Each Region's pages are
 * paced under its DescribeAlarms quota, by one pacer a Region shared by every read of this object.
 */
export class CloudWatchTripwireAlarms implements TripwireAlarms {
  /** By client: `default` and the function's own Region named outright are one Region, one client, one quota. */
  readonly #pacers = new Map<CloudWatchClient, QuotaPacer>();

  constructor(
    private readonly options: {
      readonly deployment: string;
      readonly clientFor: (region: string) => CloudWatchClient;
      /** The Regions of the clusters that have a tripwire. */
      readonly regions: readonly string[];
    },
  ) {}

  async states(): Promise<readonly TripwireAlarmState[]> {
    const clients = [...new Set(this.options.regions.map((region) => this.options.clientFor(region)))];
    const found = await Promise.all(clients.map((client) => this.statesIn(client)));
    return found.flat();
  }

  private async statesIn(client: CloudWatchClient): Promise<TripwireAlarmState[]> {
    const pacer = this.#pacerFor(client);
    const states: TripwireAlarmState[] = [];
    let nextToken: string | undefined;
    do {
      const page = await sendPaced(
        client,
        pacer,
        new DescribeAlarmsCommand({
          AlarmNamePrefix: tripwireAlarmPrefix(this.options.deployment),
          AlarmTypes: ['MetricAlarm'],
          MaxRecords: DESCRIBE_ALARMS_MAX_RECORDS,
          ...(nextToken && { NextToken: nextToken }),
        }),
      );
      for (const alarm of page.MetricAlarms ?? []) {
        const cluster = tripwireClusterOf(this.options.deployment, alarm.AlarmName ?? '');
        // StateTransitionedTimestamp is when the state last changed, which its event carried; StateUpdatedTimestamp
        // also moves when only the reason does.
        const changedAt = (alarm.StateTransitionedTimestamp ?? alarm.StateUpdatedTimestamp)?.getTime();
        if (cluster === undefined || alarm.StateValue === undefined || changedAt === undefined) continue;
        states.push({ cluster, state: alarm.StateValue, changedAt });
      }
      nextToken = page.NextToken;
    } while (nextToken);
    return states;
  }

  #pacerFor(client: CloudWatchClient): QuotaPacer {
    let pacer = this.#pacers.get(client);
    if (!pacer) {
      pacer = new QuotaPacer({ callsPerSecond: CALLS_PER_SECOND, marginMs: PACING_MARGIN_MS });
      this.#pacers.set(client, pacer);
    }
    return pacer;
  }
}
