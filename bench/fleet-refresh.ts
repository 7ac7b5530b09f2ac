/**
 * The tripwire refresh of a fleet's worst minute, as the deployed poller builds it (functions/poller/handler.ts):
 * DescribeAlarms through CloudWatchTripwireAlarms, paced under the loopback's 9 calls a second, and a conditional put
 * through DynamoDbTripwireRecorder for each state that needs writing, into the table `SENTINEL_TABLE` names in the
 * dynalite the benchmark starts. The worst minute's step opens a slow cycle, so a poll of it reads every alarm back
 * while it reads and evaluates, compares each with the state the poll read from the table
 * (support/fleet-generator.ts, fleetRecordedTripwires), and writes those that changed or are near their expiry.
 */
import { cloudWatchClients, documentClient } from '../aws/clients.ts';
import { CloudWatchTripwireAlarms } from '../aws/cloudwatch/tripwire-alarms.ts';
import { DynamoDbTripwireRecorder } from '../aws/dynamodb/tripwire-recorder.ts';
import type { TripwireRefresh } from '../shared/pipeline/tripwire-refresh.ts';
import { FLEET_DEPLOYMENT } from '../support/fleet-generator.ts';

export interface FleetRefreshFigures {
  /** Alarm states read back, and how long their DescribeAlarms pages took. */
  readonly states: number;
  readonly describeMs: number;
  /** Conditional puts sent, the states that needed writing, and how many of them the recorder kept. */
  readonly written: number;
  readonly recorded: number;
  /** How long the refresh took from its start to its last put, or to its pages when it wrote nothing. */
  readonly refreshMs: number;
}

/** The refresh of a fleet whose clusters are all in the function's Region, and what it did once the poll is over. */
export function fleetRefresh(): { readonly refresh: TripwireRefresh; figures(): FleetRefreshFigures } {
  const table = process.env.SENTINEL_TABLE;
  if (!table) throw new Error('SENTINEL_TABLE: the table the refresh records into is not set');
  const alarms = new CloudWatchTripwireAlarms({
    deployment: FLEET_DEPLOYMENT,
    clientFor: cloudWatchClients(process.env.AWS_REGION),
    regions: ['default'],
  });
  const recorder = new DynamoDbTripwireRecorder(documentClient(), table);
  let started = 0;
  let described = 0;
  let finished = 0;
  let states = 0;
  let written = 0;
  let recorded = 0;
  return {
    refresh: {
      alarms: {
        states: async () => {
          started = performance.now();
          const found = await alarms.states();
          described = performance.now();
          finished = described;
          states = found.length;
          return found;
        },
      },
      recorder: {
        record: async (...args) => {
          written++;
          const outcome = await recorder.record(...args);
          if (outcome === 'recorded') recorded++;
          finished = performance.now();
          return outcome;
        },
      },
    },
    // A refresh that failed before its pages were read took no time of its own to report.
    figures: () => ({
      states,
      describeMs: Math.max(0, described - started),
      written,
      recorded,
      refreshMs: Math.max(0, finished - started),
    }),
  };
}
