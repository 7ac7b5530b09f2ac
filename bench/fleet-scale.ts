import { type ChildProcess, execFile, fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir, totalmem } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER } from '../infra/sentinel-function.ts';
import { SHARD_SIZE } from '../shared/pipeline/shards.ts';
import { createTable, TABLE } from '../support/aws-harness.ts';
import { startDynaliteProcess } from '../support/dynalite-process.ts';
import type { FanOutFigures } from './fleet-fan-out.ts';
import type { FleetPollFigures } from './fleet-poll.ts';
import type { FleetServerReply, FleetServerRequest } from './fleet-server.ts';

export const FLEET_SCALE_SIZES = [1000, 5000, 10_000] as const;

/** What a function needs besides the JavaScript heap: code, the runtime, buffers. */
const FUNCTION_OVERHEAD_MB = 64;

/** The worst minute must be over well within the poller's timeout; a poll that runs this long has failed. */
const POLL_TIMEOUT_MS = 240_000;
/**
 * The server child holds the history the worst minute reads of every cluster (about 170 bytes a datapoint); a larger
 * young generation loads them faster.
 */
const SERVER_HEAP_MB = 8192;

/**
 * Memory a size needs on this machine, server and poll together: about 170 bytes for each stored datapoint (a
 * twentieth of the clusters with 7,000, the rest with 500) and the poll's own. A size that would not fit in four
 * fifths of the machine's memory is skipped and reported as such, so a small CI runner still finishes.
 */
const BYTES_PER_CLUSTER = 0.3e6;

const run = promisify(execFile);
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export interface FleetScaleRow {
  readonly clusters: number;
  readonly datapointsStored: number;
  readonly loadMs: number;
  readonly completed: boolean;
  /** What the loopback's GetMetricData quotas admitted and refused during the poll. */
  readonly quota?: {
    readonly datapoints: number;
    readonly throttled: number;
    readonly getMetricDataCalls: number;
    /** The least time those calls could take under the quotas, whatever the machine. */
    readonly floorSeconds: number;
    /** The tripwire refresh's DescribeAlarms calls refused by its rate quota. */
    readonly describeAlarmsThrottled: number;
  };
  /** The machine's one-minute load average when the poll ended: above its cores, the wall time is not the poll's own. */
  readonly loadAverage?: number;
  /** Why the poll did not complete (out of memory, timed out) or was not run (the machine is too small). */
  readonly error?: string;
  readonly figures?: FleetPollFigures;
  /**
   * The poll runs with the heap capped as a function of `memoryMb` would cap it (64 MB left for code and buffers):
   * whether it completes, and its peak RSS then, which is what the function needs rather than what an unbounded heap
   * happens to grow to.
   */
  readonly completesInMemoryMb?: {
    readonly memoryMb: number;
    readonly completed: boolean;
    readonly peakRssMb?: number;
  };
  /** The same worst minute fanned out (a fleet larger than one shard): coordinator and shard workers. */
  readonly fanOut?: {
    readonly figures?: FanOutFigures;
    readonly error?: string;
    readonly quota?: QuotaFigures;
  };
}

type QuotaFigures = NonNullable<FleetScaleRow['quota']>;

/**
 * The worst minute of growing fleets (every tripwire armed) against the loopback CloudWatch with GetMetricData's
 * quotas and 50 ms per call, each poll in a fresh process with the heap a `memoryMb` function has, so that its peak
 * memory is its own; the server lives in another child and keeps the fleet between sizes.
 */
export async function measureFleetScale(options: {
  /** The memory a function gets. */
  readonly memoryMb: number;
}): Promise<FleetScaleRow[]> {
  // The table the tripwire refresh records into, in a dynalite of its own, so that storing does not run on the poll's
  // event loop (support/dynalite-process.ts says why).
  const dynamo = await startDynaliteProcess();
  try {
    await createTable(dynamo.endpoint);
    return await pollEachSize(dynamo.endpoint, options);
  } finally {
    await dynamo.close();
  }
}

/** Each size of FLEET_SCALE_SIZES, loaded into the fleet server child and polled, one invocation and fanned out. */
async function pollEachSize(dynamodb: string, options: { readonly memoryMb: number }): Promise<FleetScaleRow[]> {
  const server = fork(here('./fleet-server.ts'), [], {
    execArgv: ['--import', 'tsx', `--max-old-space-size=${SERVER_HEAP_MB}`, '--max-semi-space-size=64'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const ready = await reply(server);
    if (ready.kind !== 'ready') throw new Error(`fleet server: unexpected ${ready.kind}`);
    const endpoints: Endpoints = { cloudwatch: ready.endpoint, dynamodb };
    const rows: FleetScaleRow[] = [];
    const script = await bundledPoll();
    for (const size of FLEET_SCALE_SIZES) {
      if (size * BYTES_PER_CLUSTER > totalmem() * 0.8) {
        rows.push({
          clusters: size,
          datapointsStored: 0,
          loadMs: 0,
          completed: false,
          error: `skipped: needs about ${Math.ceil((size * BYTES_PER_CLUSTER) / 1e9)} GB of memory, this machine has ${Math.floor(totalmem() / 1e9)} GB`,
        });
        continue;
      }
      send(server, { kind: 'load', size });
      const loaded = await reply(server);
      if (loaded.kind !== 'loaded') throw new Error(`fleet server: unexpected ${loaded.kind}`);
      const poll = await pollChild(script, endpoints, size, options.memoryMb - FUNCTION_OVERHEAD_MB);
      const quota = await quotaSpent(server);
      const fanOut = size > SHARD_SIZE ? await fanOutChild(server, endpoints, size, options.memoryMb) : undefined;
      rows.push({
        clusters: size,
        datapointsStored: loaded.datapoints,
        loadMs: loaded.ms,
        ...poll,
        quota,
        ...(fanOut && { fanOut }),
        loadAverage: loadavg()[0] ?? 0,
        completesInMemoryMb: {
          memoryMb: options.memoryMb,
          completed: poll.completed,
          ...(poll.figures && { peakRssMb: poll.figures.peakRssMb }),
        },
      });
    }
    return rows;
  } finally {
    send(server, { kind: 'stop' });
  }
}

/**
 * The worst-minute poll as one ESM bundle, built by esbuild as the functions are (infra/sentinel-function.ts), so that
 * its resident memory is the function's: run through the tsx loader instead, the same poll holds about 100 MB more,
 * the loader's, which no deployed function carries.
 */
async function bundledPoll(): Promise<string> {
  const outfile = path.join(mkdtempSync(path.join(tmpdir(), 'fleet-poll-')), 'fleet-poll.mjs');
  await build({
    entryPoints: [here('./fleet-poll.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: ESM_REQUIRE_BANNER },
    logLevel: 'error',
  });
  return outfile;
}

async function pollChild(
  script: string,
  endpoints: Endpoints,
  size: number,
  heapMb: number,
): Promise<{ completed: boolean; figures?: FleetPollFigures; error?: string }> {
  try {
    const { stdout } = await run(process.execPath, [`--max-old-space-size=${heapMb}`, script, String(size)], {
      timeout: POLL_TIMEOUT_MS,
      maxBuffer: 1 << 20,
      env: benchEnv(endpoints),
    });
    const last = stdout.trim().split('\n').at(-1) ?? '';
    return { completed: true, figures: JSON.parse(last) as FleetPollFigures };
  } catch (error) {
    const failure = error as { killed?: boolean; signal?: string; stderr?: string; message: string };
    const reason = failure.killed
      ? `timed out after ${POLL_TIMEOUT_MS / 1000} s`
      : /heap out of memory/.test(failure.stderr ?? '')
        ? `JavaScript heap out of memory at ${heapMb} MB`
        : failure.message.split('\n')[0];
    return { completed: false, error: reason };
  }
}

async function quotaSpent(server: ChildProcess): Promise<QuotaFigures> {
  send(server, { kind: 'quota' });
  const quota = await reply(server);
  if (quota.kind !== 'quota') throw new Error(`fleet server: unexpected ${quota.kind}`);
  const { datapoints, throttled, getMetricDataCalls, floorSeconds, describeAlarmsThrottled } = quota;
  return { datapoints, throttled, getMetricDataCalls, floorSeconds, describeAlarmsThrottled };
}

/** The worst minute again, fanned out: a coordinator and one process per shard, each with a function's heap. */
async function fanOutChild(
  server: ChildProcess,
  endpoints: Endpoints,
  size: number,
  memoryMb: number,
): Promise<NonNullable<FleetScaleRow['fanOut']>> {
  send(server, { kind: 'reset' });
  await reply(server);
  const heapMb = memoryMb - FUNCTION_OVERHEAD_MB;
  try {
    const { stdout } = await run(
      process.execPath,
      [`--max-old-space-size=${heapMb}`, '--import', 'tsx', here('./fleet-fan-out.ts'), String(size), String(heapMb)],
      { timeout: POLL_TIMEOUT_MS, maxBuffer: 1 << 20, env: benchEnv(endpoints) },
    );
    const figures = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as FanOutFigures;
    return { figures, quota: await quotaSpent(server) };
  } catch (error) {
    return { error: (error as Error).message.split('\n')[0] ?? 'failed' };
  }
}

/** Where the poll finds CloudWatch (the fleet server) and DynamoDB (dynalite). */
interface Endpoints {
  readonly cloudwatch: string;
  readonly dynamodb: string;
}

function benchEnv(endpoints: Endpoints): NodeJS.ProcessEnv {
  return {
    ...process.env,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    AWS_ENDPOINT_URL_CLOUDWATCH: endpoints.cloudwatch,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    SENTINEL_TABLE: TABLE,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

function send(child: ChildProcess, message: FleetServerRequest): void {
  if (child.connected) child.send(message);
}

function reply(child: ChildProcess): Promise<FleetServerReply> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`fleet server exited with ${code}`));
    child.once('exit', exited);
    child.once('message', (message) => {
      child.off('exit', exited);
      resolve(message as FleetServerReply);
    });
  });
}
