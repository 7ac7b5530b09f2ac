/**
 * The tripwire refresh of a fleet's worst minute, as the deployed poller builds it (functions/poller/handler.ts):
 * DescribeAlarms through CloudWatchTripwireAlarms, paced under the loopback's 9 calls a second, and one conditional put
 * a state through DynamoDbTripwireRecorder, into the table `SENTINEL_TABLE` names in the dynalite the benchmark
 * starts. The worst minute's step opens a slow cycle, so a poll of it reads every alarm back and records every state
 * again while it reads and evaluates.
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
  /** States recorded, and how long the refresh took from its start to its last put. */
  readonly recorded: number;
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
  let recorded = 0;
  return {
    refresh: {
      alarms: {
        states: async () => {
          started = performance.now();
          const found = await alarms.states();
          described = performance.now();
          states = found.length;
          return found;
        },
      },
      recorder: {
        record: async (...args) => {
          const outcome = await recorder.record(...args);
          if (outcome === 'recorded') recorded++;
          finished = performance.now();
          return outcome;
        },
      },
    },
    // A refresh that failed before its pages were read, or recorded nothing, took no time of its own to report.
    figures: () => ({
      states,
      describeMs: Math.max(0, described - started),
      recorded,
      refreshMs: Math.max(0, finished - started),
    }),
  };
}
