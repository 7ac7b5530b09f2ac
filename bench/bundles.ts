import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
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
}

/** Size and cold import time of the poller and digest bundles as CDK staged them for the deployed stack. */
export function measureBundles(stack: DeployedStack): BundleFigures[] {
  return [measure('poller', stack.poller), measure('digest', stack.digest)];
}

function measure(name: BundleFigures['name'], fn: DeployedFunction): BundleFigures {
  const bundle = path.join(fn.bundleDir, 'index.mjs');
  const map = `${bundle}.map`;
  const importMs: number[] = [];
  const processMs: number[] = [];
  // Top-level await in an ESM entry, timed from the first line of user code to the end of the bundle's evaluation.
  const probe = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(bundle).href)}); process.stdout.write(String(performance.now() - t));`;
  for (let run = 0; run < IMPORT_RUNS; run++) {
    const started = performance.now();
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', probe], {
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
    });
    processMs.push(performance.now() - started);
    importMs.push(Number(out));
  }
  return {
    name,
    bytes: statSync(bundle).size,
    sourceMapBytes: existsSync(map) ? statSync(map).size : 0,
    memoryMb: fn.memoryMb,
    importMs,
    medianImportMs: median(importMs),
    medianProcessMs: median(processMs),
  };
}
