import { compileRuleSet } from '../shared/config/deployment-config.ts';
import { startAwsHarness } from '../support/aws-harness.ts';
import { captureOutput } from '../support/captured-output.ts';
import { FLEET_OUTAGE_STARTS, FLEET_STEP_AT, fleetClusters, loadFleet } from '../support/fleet-generator.ts';
import { loadPoller, loadTripwire, pollAt, tripwireAt } from '../support/poller-harness.ts';
import { type OperationUsage, startDynamoMeter } from './dynamodb-meter.ts';
import { median } from './statistics.ts';

/** A small deployment, so that each minute polls a couple of clusters on the slow cadence, as most minutes do. */
const FOOTPRINT_CLUSTERS = 20;
/** Scheduled polls measured: long enough for every cluster to come due and for the outage to page and update. */
const FOOTPRINT_MINUTES = 30;

/** DynamoDB request units, as on-demand bills them. */
interface RequestUnits {
  readonly readUnits: number;
  readonly writeUnits: number;
}

/** What one invocation of the deployed poller costs besides CloudWatch reads, measured on the real handler. */
export interface PollFootprint {
  readonly clusters: number;
  readonly invocations: number;
  readonly polledPerInvocation: number;
  /** Polls before the outage, which is what nearly every minute of a month is: units per poll. */
  readonly quietPoll: RequestUnits & {
    readonly polls: number;
    /** Per quiet poll, by DynamoDB operation. */
    readonly byOperation: Readonly<Record<string, OperationUsage>>;
  };
  /**
   * The outage's polls (its tripwire armed, its incident opened and paged), in total, beyond what as many quiet polls
   * take: what one incident adds.
   */
  readonly incident: RequestUnits & { readonly polls: number };
  readonly snsPublishes: number;
  readonly logBytesPerInvocation: number;
  /** Against loopback servers: the DynamoDB part of a real invocation is slower, the cost model says by how much. */
  readonly medianDurationMs: number;
  /** The alarm state-change event that arms a cluster: one more invocation, with its own DynamoDB write. */
  readonly tripwireEvent: { readonly readUnits: number; readonly writeUnits: number; readonly logBytes: number };
}

/**
 * Run the deployed poller's handler, minute after minute, against loopback CloudWatch, SNS and dynalite behind a
 * meter: one cluster of the fleet has its webhook outage, and its tripwire alarm fires when the outage starts.
 */
export async function measurePollFootprint(): Promise<PollFootprint> {
  const harness = await startAwsHarness();
  const meter = await startDynamoMeter(harness.dynamoEndpoint);
  process.env.AWS_ENDPOINT_URL_DYNAMODB = meter.endpoint;
  // What the functions write to stdout and stderr is what CloudWatch Logs ingests (Powertools writes there directly).
  const output = captureOutput();
  try {
    const clusters = fleetClusters(FOOTPRINT_CLUSTERS);
    const lookback = compileRuleSet([], 'rules').lookback(60);
    loadFleet(harness.cloudwatch, 0, clusters.length, FLEET_STEP_AT, lookback + FOOTPRINT_MINUTES);
    const handler = await loadPoller(harness, clusters);
    const tripwire = await loadTripwire();
    const first = FLEET_STEP_AT - (FOOTPRINT_MINUTES - 1) * 60_000;
    // The tripwire's datapoint at the outage's first minute breaches; its state change arms the next poll.
    const armedAt = FLEET_OUTAGE_STARTS + 60_000;

    const durations: number[] = [];
    let polled = 0;
    let tripwireEvent = { readUnits: 0, writeUnits: 0, logBytes: 0 };
    const quiet = new Map<string, OperationUsage>();
    const outage = new Map<string, OperationUsage>();
    for (let minute = 0; minute < FOOTPRINT_MINUTES; minute++) {
      const at = first + minute * 60_000;
      if (at === armedAt) {
        meter.reset();
        const logged = output.bytes();
        await tripwireAt(tripwire, clusters[0]?.name ?? '', 'ALARM', armedAt);
        const usage = [...meter.usage.values()];
        tripwireEvent = {
          readUnits: usage.reduce((n, u) => n + u.readUnits, 0),
          writeUnits: usage.reduce((n, u) => n + u.writeUnits, 0),
          logBytes: output.bytes() - logged,
        };
      }
      meter.reset();
      const started = performance.now();
      const summary = await pollAt(handler, at);
      durations.push(performance.now() - started);
      polled += summary.polled;
      addUsage(at < FLEET_OUTAGE_STARTS ? quiet : outage, meter.usage);
    }
    const quietPolls = (FLEET_OUTAGE_STARTS - first) / 60_000;
    const outagePolls = FOOTPRINT_MINUTES - quietPolls;
    const perQuietPoll = (n: number) => n / quietPolls;
    const quietUnits = unitsOf(quiet);
    const outageUnits = unitsOf(outage);
    return {
      clusters: clusters.length,
      invocations: FOOTPRINT_MINUTES,
      polledPerInvocation: polled / FOOTPRINT_MINUTES,
      quietPoll: {
        polls: quietPolls,
        readUnits: perQuietPoll(quietUnits.readUnits),
        writeUnits: perQuietPoll(quietUnits.writeUnits),
        byOperation: Object.fromEntries(
          [...quiet].map(([operation, u]) => [
            operation,
            {
              calls: perQuietPoll(u.calls),
              readUnits: perQuietPoll(u.readUnits),
              writeUnits: perQuietPoll(u.writeUnits),
            },
          ]),
        ),
      },
      incident: {
        polls: outagePolls,
        readUnits: outageUnits.readUnits - perQuietPoll(quietUnits.readUnits) * outagePolls,
        writeUnits: outageUnits.writeUnits - perQuietPoll(quietUnits.writeUnits) * outagePolls,
      },
      snsPublishes: harness.sns.published.length,
      logBytesPerInvocation: (output.bytes() - tripwireEvent.logBytes) / FOOTPRINT_MINUTES,
      medianDurationMs: median(durations),
      tripwireEvent,
    };
  } finally {
    output.restore();
    await meter.close();
    await harness.close();
  }
}

function addUsage(totals: Map<string, OperationUsage>, usage: ReadonlyMap<string, OperationUsage>): void {
  for (const [operation, used] of usage) {
    const total = totals.get(operation) ?? { calls: 0, readUnits: 0, writeUnits: 0 };
    totals.set(operation, {
      calls: total.calls + used.calls,
      readUnits: total.readUnits + used.readUnits,
      writeUnits: total.writeUnits + used.writeUnits,
    });
  }
}

function unitsOf(totals: ReadonlyMap<string, OperationUsage>): RequestUnits {
  const all = [...totals.values()];
  return {
    readUnits: all.reduce((n, u) => n + u.readUnits, 0),
    writeUnits: all.reduce((n, u) => n + u.writeUnits, 0),
  };
}
