import { type CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { tripwireAlarmPrefix, tripwireClusterOf } from '../../shared/pipeline/alarm-names.ts';
import type { TripwireAlarmState, TripwireAlarms } from '../../shared/pipeline/ports.ts';
import { RegionPacers, sendPaced } from '../paced-send.ts';
import { DESCRIBE_ALARMS_CALLS_PER_SECOND, DESCRIBE_ALARMS_MAX_RECORDS } from './describe-alarms-pacing.ts';

/** What this module sends: DescribeAlarms by the deployment's tripwire prefix, once per Region per slow cycle. */
export const IAM_ACTIONS = ['cloudwatch:DescribeAlarms'] as const;

/**
 * The deployment's tripwire alarms, read with DescribeAlarms (AlarmNamePrefix, every page) in each Region that holds
 * some: a tripwire alarm lives in its cluster's Region (`default` is the function's own). Each Region's pages are
 * paced at the poller's share of its DescribeAlarms quota (describe-alarms-pacing.ts), by one pacer a Region shared
 * by every read of this object.
 */
export class CloudWatchTripwireAlarms implements TripwireAlarms {
  /** By client: `default` and the function's own Region named outright are one Region, one client, one quota. */
  readonly #pacers = new RegionPacers({ callsPerSecond: DESCRIBE_ALARMS_CALLS_PER_SECOND.tripwireRefresh });

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
    const pacer = this.#pacers.pacerFor(client);
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
}
