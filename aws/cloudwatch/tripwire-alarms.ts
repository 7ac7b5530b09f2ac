import { type CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { tripwireAlarmPrefix, tripwireClusterOf } from '../../shared/pipeline/alarm-names.ts';
import type { TripwireAlarmState, TripwireAlarms } from '../../shared/pipeline/ports.ts';

/** What this module sends: DescribeAlarms by the deployment's tripwire prefix, once per Region per slow cycle. */
export const IAM_ACTIONS = ['cloudwatch:DescribeAlarms'] as const;

/**
 * DescribeAlarms' largest page, MaxRecords "Valid Range: Minimum value of 1. Maximum value of 100":
 * https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_DescribeAlarms.html
 */
export const DESCRIBE_ALARMS_MAX_RECORDS = 100;

/**
 * The deployment's tripwire alarms, read with DescribeAlarms (AlarmNamePrefix, every page) in each Region that holds
 * some: a tripwire alarm lives in its cluster's Region (`default` is the function's own).
 */
export class CloudWatchTripwireAlarms implements TripwireAlarms {
  constructor(
    private readonly options: {
      readonly deployment: string;
      readonly clientFor: (region: string) => CloudWatchClient;
      /** The Regions of the clusters that have a tripwire. */
      readonly regions: readonly string[];
    },
  ) {}

  async states(): Promise<readonly TripwireAlarmState[]> {
    const regions = [...new Set(this.options.regions)];
    const found = await Promise.all(regions.map((region) => this.statesIn(this.options.clientFor(region))));
    return found.flat();
  }

  private async statesIn(client: CloudWatchClient): Promise<TripwireAlarmState[]> {
    const states: TripwireAlarmState[] = [];
    let nextToken: string | undefined;
    do {
      const page = await client.send(
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
