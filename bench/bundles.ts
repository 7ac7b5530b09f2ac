import { type ExecFileSyncOptionsWithStringEncoding, execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { DeployedFunction, DeployedStack } from './deployed-stack.ts';
import { median } from './statistics.ts';

/** Fresh processes per bundle: the median of ten is what the issue asks for. */
const IMPORT_RUNS = 10;

export interface BundleFigures {
  readonly name: 'poller' | 'digest';
  /** Minified `index.mjs` as uploaded; the source map ships beside it and is not loaded unless an error is printed. */
  readonly bytes: number;
  readonly sourceMapBytes: number;
  readonly memoryMb: number;
  /** `await import(bundle)` inside a fresh Node process, with the function's environment, each run. */
  readonly importMs: readonly number[];
  readonly medianImportMs: number;
  /** The same runs from spawn to exit: Node's own start-up included. */
  readonly medianProcessMs: number;
  /**
   * The CPU time of the same imports (user and system, every thread of the process). On a machine no one else uses it
   * is within a few milliseconds of the import's wall time; on a shared machine the wall time grows with the other
   * processes' load and this does not, which tells a slower bundle from a busier machine.
   */
  readonly medianImportCpuMs: number;
  /** A bare `node -e 0` with the same environment, run between the imports: what the machine adds to any process. */
  readonly medianNodeStartMs: number;
  /** The one-minute load average before and after the runs, against the machine's CPUs. */
  readonly loadAverage: readonly [number, number];
}

/** Size and cold import time of the poller and digest bundles as CDK staged them for the deployed stack. */
export function measureBundles(stack: DeployedStack): BundleFigures[] {
  return [measure('poller', stack.poller), measure('digest', stack.digest)];
}

function measure(name: BundleFigures['name'], fn: DeployedFunction): BundleFigures {
  const bundle = path.join(fn.bundleDir, 'index.mjs');
  const map = `${bundle}.map`;
  const importMs: number[] = [];
  const importCpuMs: number[] = [];
  const processMs: number[] = [];
  const nodeStartMs: number[] = [];
  // Top-level await in an ESM entry, timed from the first line of user code to the end of the bundle's evaluation.
  const probe = `const t = performance.now(); const cpu = process.cpuUsage(); await import(${JSON.stringify(pathToFileURL(bundle).href)}); const used = process.cpuUsage(cpu); process.stdout.write(JSON.stringify([performance.now() - t, (used.user + used.system) / 1000]));`;
  const options: ExecFileSyncOptionsWithStringEncoding = {
    cwd: fn.bundleDir,
    env: {
      PATH: process.env.PATH,
      ...fn.environment,
      LAMBDA_TASK_ROOT: fn.bundleDir,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'bench',
      AWS_SECRET_ACCESS_KEY: 'bench',
    },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  };
  const loadBefore = loadavg()[0] ?? 0;
  for (let run = 0; run < IMPORT_RUNS; run++) {
    const started = performance.now();
    const [wall, cpu] = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], options)) as [
      number,
      number,
    ];
    processMs.push(performance.now() - started);
    importMs.push(wall);
    importCpuMs.push(cpu);
    const bare = performance.now();
    execFileSync(process.execPath, ['-e', '0'], options);
    nodeStartMs.push(performance.now() - bare);
  }
  return {
    name,
    bytes: statSync(bundle).size,
    sourceMapBytes: existsSync(map) ? statSync(map).size : 0,
    memoryMb: fn.memoryMb,
    importMs,
    medianImportMs: median(importMs),
    medianProcessMs: median(processMs),
    medianImportCpuMs: median(importCpuMs),
    medianNodeStartMs: median(nodeStartMs),
    loadAverage: [loadBefore, loadavg()[0] ?? 0],
  };
}
