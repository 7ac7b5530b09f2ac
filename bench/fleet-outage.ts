/**
 * The fleet-scale fault test at bench size: every cluster of a 10,000-cluster fleet fails in the same minute, and the
 * polls run it through the DynamoDB stores (dynalite, in a process of its own) and SNS (the loopback server) until the
 * fleet's page, its resolve and an unrelated cluster's page an hour later have gone out (support/fleet-outage.ts),
 * once without faults and once with each fault of FLEET_OUTAGE_FAULTS (at FAULT_CASE_CLUSTERS). Each run is a child process with the heap a
 * poller of POLLER_MEMORY_MB has, as a warm Lambda container keeps one process across its invocations, so that its
 * memory is the polls' own and a poll that needs more than the function has fails the run.
 *
 * `npm run bench` runs it with the rest; `npx tsx bench/fleet-outage.ts` runs it alone and writes its figures into
 * bench/results.json and its section of bench/RESULTS.md, leaving the other sections as they were.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { documentClient } from '../aws/clients.ts';
import { ScenarioTripwires } from '../shared/scenario/replay.ts';
import { startAwsHarness } from '../support/aws-harness.ts';
import {
  FLEET_OUTAGE_FAULTS,
  fleetOutageScenario,
  type InvocationFigures,
  LONE_CLUSTER,
  POLLER_LIMITS,
  runFleetOutage,
} from '../support/fleet-outage.ts';

export const FLEET_OUTAGE_CLUSTERS = 10_000;
/**
 * The fault cases run at this size: each repeats the whole outage, and three at 10,000 clusters would take the bench
 * past its ten minutes. A fault hits one step whatever the fleet's size; the size is what the case without faults
 * measures.
 */
const FAULT_CASE_CLUSTERS = 1_000;
/** What a function needs besides the JavaScript heap: code, the runtime, buffers (as bench/fleet-scale.ts). */
const FUNCTION_OVERHEAD_MB = 64;
/** A run that takes longer than this has failed: the bench must end within its ten minutes. */
const RUN_TIMEOUT_MS = 480_000;

const CASES = [['without faults', () => () => documentClient()], ...FLEET_OUTAGE_FAULTS] as const;

export interface FleetOutageRow {
  readonly faults: string;
  readonly clusters: number;
  readonly completed: boolean;
  /** One page, one resolve, the lone cluster's page: in that order, and nothing else. */
  readonly pagedAsExpected?: boolean;
  readonly subjects?: readonly string[];
  readonly totalMs?: number;
  /** CPU time of the polls' process (user and system): on a shared machine the wall time is longer than its own. */
  readonly cpuMs?: number;
  readonly polls?: readonly InvocationFigures[];
  /** Whether every poll stayed within the poller's timeout and memory (POLLER_LIMITS). */
  readonly withinLimits?: boolean;
  readonly peakRssMb?: number;
  readonly dynalitePeakRssMb?: number;
  /** The machine's one-minute load average when the run ended: above its cores, wall times are not the run's own. */
  readonly loadAverage?: number;
  readonly error?: string;
}

const run = promisify(execFile);
const self = fileURLToPath(import.meta.url);

/** Every case of the fleet outage at `clusters`, one child process each. */
export async function measureFleetOutage(clusters = FLEET_OUTAGE_CLUSTERS): Promise<FleetOutageRow[]> {
  const rows: FleetOutageRow[] = [];
  for (const [index, [faults]] of CASES.entries()) {
    const size = index === 0 ? clusters : Math.min(clusters, FAULT_CASE_CLUSTERS);
    try {
      const { stdout } = await run(
        process.execPath,
        [
          `--max-old-space-size=${POLLER_LIMITS.memoryMb - FUNCTION_OVERHEAD_MB}`,
          '--import',
          'tsx',
          self,
          '--case',
          String(index),
          String(size),
        ],
        { timeout: RUN_TIMEOUT_MS, maxBuffer: 1 << 24, env: { ...process.env, NODE_OPTIONS: '' } },
      );
      rows.push(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as FleetOutageRow);
    } catch (error) {
      const failure = error as { killed?: boolean; stderr?: string; message: string };
      const reason = failure.killed
        ? `timed out after ${RUN_TIMEOUT_MS / 1000} s`
        : /heap out of memory/.test(failure.stderr ?? '')
          ? `JavaScript heap out of memory at ${POLLER_LIMITS.memoryMb - FUNCTION_OVERHEAD_MB} MB`
          : failure.message.split('\n')[0];
      rows.push({ faults, clusters: size, completed: false, error: reason ?? 'failed' });
    }
  }
  return rows;
}

/** One case, in this (child) process: prints its FleetOutageRow. */
async function runCase(index: number, clusters: number): Promise<FleetOutageRow> {
  const [faults, clientOf] = CASES[index] ?? CASES[0];
  const harness = await startAwsHarness({ dynamoInChildProcess: true });
  const scenario = fleetOutageScenario(clusters);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const outage = await runFleetOutage({
    harness,
    scenario,
    tripwires: new ScenarioTripwires(scenario, { writeP99Seconds: 2, errorRatio: 0.05 }),
    clientOf: clientOf(),
  });
  const totalMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const { peakRssMb: dynalitePeakRssMb } = await harness.close();
  const [page, resolve, lone, ...more] = outage.subjects;
  return {
    faults,
    clusters,
    completed: true,
    pagedAsExpected:
      more.length === 0 &&
      (page?.startsWith('[PAGE]') ?? false) &&
      (page?.endsWith(`and ${clusters - 1} more`) ?? false) &&
      (resolve?.startsWith('[RESOLVED]') ?? false) &&
      (lone?.includes(LONE_CLUSTER) ?? false),
    subjects: outage.subjects,
    totalMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    polls: outage.invocations,
    withinLimits: outage.invocations.every(
      (poll) => poll.ms < POLLER_LIMITS.timeoutMs && poll.peakRssMb < POLLER_LIMITS.memoryMb,
    ),
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    ...(dynalitePeakRssMb !== undefined && { dynalitePeakRssMb }),
    loadAverage: loadavg()[0] ?? 0,
  };
}

if (process.argv[1] === self) {
  const caseAt = process.argv.indexOf('--case');
  if (caseAt >= 0) {
    const row = await runCase(Number(process.argv[caseAt + 1]), Number(process.argv[caseAt + 2]));
    console.log(JSON.stringify(row));
  } else {
    const { renderResults } = await import('./report.ts');
    const file = fileURLToPath(new URL('./results.json', import.meta.url));
    const fleetOutage = await measureFleetOutage(Number(process.argv[2] ?? FLEET_OUTAGE_CLUSTERS));
    const results = { ...JSON.parse(readFileSync(file, 'utf8')), fleetOutage };
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(fileURLToPath(new URL('./RESULTS.md', import.meta.url)), renderResults(results));
    for (const row of fleetOutage) process.stderr.write(`${JSON.stringify({ ...row, polls: undefined })}\n`);
  }
}
