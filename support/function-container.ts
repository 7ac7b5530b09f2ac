/**
 * A Lambda function's warm container, played by a child process: it imports the function's handler once (its cold
 * start, with the environment it is given), then runs each invocation it is sent with the handlers' clock set to when
 * the event arrives (support/handler-clock.ts) and a context whose remaining time counts down from the function's
 * timeout. The process has the JavaScript heap a function of that memory has, so an invocation that needs more than
 * the function has fails; each answer says how long the invocation ran and the most memory its process held
 * meanwhile. Killing the process is a Lambda killed mid-invocation; the next invocation needs a new container.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { arriveAt } from './handler-clock.ts';

/** A function's memory and timeout, as its construct deploys it. */
export interface FunctionLimits {
  readonly memoryMb: number;
  readonly timeoutMs: number;
}

/** What a function needs besides the JavaScript heap: code, the runtime, buffers. */
export const FUNCTION_OVERHEAD_MB = 64;

/**
 * One invocation: how long it ran, the CPU time its process spent meanwhile (on a machine shared with other work the
 * wall time is longer than the invocation's own), and the most memory its process held while it ran, heap and
 * resident set.
 */
export interface InvocationFigures {
  readonly ms: number;
  readonly cpuMs: number;
  readonly peakHeapMb: number;
  readonly peakRssMb: number;
}

export interface Invocation extends InvocationFigures {
  readonly result?: unknown;
  /** The error the handler threw, or how its container died. */
  readonly error?: string;
}

interface InvokeMessage {
  readonly id: number;
  readonly event: unknown;
  readonly arrival: number;
  readonly requestId: string;
}
interface AnswerMessage extends Invocation {
  readonly id: number;
  /** The invocation timed out, and the container stops after this answer. */
  readonly stopping?: true;
}

export interface FunctionContainer {
  readonly limits: FunctionLimits;
  /** Run one invocation of `event`, arriving at `arrival` on the handlers' clock. */
  invoke(event: unknown, arrival: number, requestId: string): Promise<Invocation>;
  /** Kill the process now, as Lambda does a container whose invocation timed out or crashed. */
  kill(): void;
  readonly alive: boolean;
  close(): Promise<void>;
}

const MB = 2 ** 20;
const NOT_RUN: InvocationFigures = { ms: 0, cpuMs: 0, peakHeapMb: 0, peakRssMb: 0 };
/**
 * An invocation with less time than this left has timed out: middy ends the handler 5 ms before the timeout
 * (`timeoutEarlyInMillis`), and Lambda then stops the container, whatever the handler was still doing.
 */
const TIMED_OUT_WITHIN_MS = 100;
/** How long past its timeout an invocation that has not answered is given before its container is killed. */
const HARD_STOP_AFTER_MS = 2_000;
/** How often memory is sampled during an invocation: each sample waits for the event loop, so a peak may fall between. */
const SAMPLE_EVERY_MS = 20;
const self = fileURLToPath(import.meta.url);

/**
 * Start a container of the handler in `entry` (a path from the repository's root, such as
 * `functions/poller/handler.ts`) with `env` added to this process's environment, and wait for its cold start.
 */
export async function startContainer(options: {
  readonly entry: string;
  readonly limits: FunctionLimits;
  readonly env?: Readonly<Record<string, string>>;
  /** A file the handler's log lines are appended to; by default they are dropped. */
  readonly logFile?: string;
}): Promise<FunctionContainer> {
  const { limits } = options;
  // The child keeps its own copy of the log file's descriptor; the parent's is closed once the child has it.
  const log = options.logFile === undefined ? undefined : openSync(options.logFile, 'a');
  const child: ChildProcess = fork(self, [options.entry, String(limits.timeoutMs)], {
    execArgv: ['--import', 'tsx', `--max-old-space-size=${limits.memoryMb - FUNCTION_OVERHEAD_MB}`],
    // The child never needs the parent's test-runner flags (Jest's --experimental-vm-modules). The handlers log to
    // standard output, one JSON line an event.
    env: { ...process.env, ...options.env, NODE_OPTIONS: '' },
    stdio: ['ignore', log ?? 'ignore', 'inherit', 'ipc'],
  });
  if (log !== undefined) closeSync(log);
  let exit: string | undefined;
  const pending = new Map<number, (answer: Invocation) => void>();
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit ??= signal ? `container killed (${signal})` : `container exited with ${code}`;
      for (const settle of pending.values()) settle({ ...NOT_RUN, error: exit });
      pending.clear();
      resolve();
    }),
  );
  child.on('message', (message: AnswerMessage | 'ready') => {
    if (message === 'ready') return;
    const { id, stopping, ...answer } = message;
    // Gone from now on: the next invocation needs a new container, even before this one's exit is seen.
    if (stopping) exit = 'container stopped after a timeout';
    pending.get(id)?.(answer);
    pending.delete(id);
  });
  await Promise.race([
    new Promise<void>((resolve) => child.once('message', () => resolve())),
    exited.then(() => {
      throw new Error(`${options.entry}: ${exit} before its handler loaded`);
    }),
  ]);
  let sequence = 0;
  return {
    limits,
    get alive() {
      return exit === undefined;
    },
    invoke: (event, arrival, requestId) => {
      if (exit !== undefined) return Promise.resolve({ ...NOT_RUN, error: exit });
      const id = ++sequence;
      return new Promise((resolve) => {
        // A handler that holds the event loop past its timeout is stopped here, as Lambda would stop it.
        const deadline = setTimeout(() => child.kill('SIGKILL'), limits.timeoutMs + HARD_STOP_AFTER_MS);
        const started = performance.now();
        pending.set(id, (answer) => {
          clearTimeout(deadline);
          // A container that died mid-invocation sent no figures: its wall time is the time until it died.
          resolve(
            answer.ms === 0 && answer.error !== undefined ? { ...answer, ms: performance.now() - started } : answer,
          );
        });
        child.send({ id, event, arrival, requestId } satisfies InvokeMessage);
      });
    },
    kill: () => {
      child.kill('SIGKILL');
    },
    close: async () => {
      if (exit === undefined) child.disconnect();
      await exited;
    },
  };
}

/** Run `work`, sampling the process's heap and resident set while it runs. */
async function measured(work: () => Promise<unknown>): Promise<InvocationFigures> {
  let peakHeap = 0;
  let peakRss = 0;
  const sample = () => {
    const { heapUsed, rss } = process.memoryUsage();
    peakHeap = Math.max(peakHeap, heapUsed);
    peakRss = Math.max(peakRss, rss);
  };
  const sampler = setInterval(sample, SAMPLE_EVERY_MS);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  try {
    await work();
  } finally {
    clearInterval(sampler);
    sample();
  }
  const cpu = process.cpuUsage(cpuBefore);
  return {
    ms: performance.now() - started,
    cpuMs: (cpu.user + cpu.system) / 1000,
    peakHeapMb: peakHeap / MB,
    peakRssMb: peakRss / MB,
  };
}

if (process.send && process.argv[1] === self) {
  const [entry = '', timeout = '0'] = process.argv.slice(2);
  const timeoutMs = Number(timeout);
  const { handler } = (await import(pathToFileURL(fileURLToPath(new URL(`../${entry}`, import.meta.url))).href)) as {
    handler: (event: unknown, context: object) => Promise<unknown>;
  };
  process.on('message', async ({ id, event, arrival, requestId }: InvokeMessage) => {
    arriveAt(arrival);
    const started = performance.now();
    const context = {
      awsRequestId: requestId,
      functionName: entry,
      getRemainingTimeInMillis: () => Math.max(0, timeoutMs - (performance.now() - started)),
    };
    let outcome: { result?: unknown; error?: string } = {};
    const figures = await measured(async () => {
      try {
        outcome = { result: await handler(event, context) };
      } catch (error) {
        outcome = { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
      }
    });
    if (context.getRemainingTimeInMillis() > TIMED_OUT_WITHIN_MS) {
      process.send?.({ id, ...figures, ...outcome } satisfies AnswerMessage);
      return;
    }
    // Timed out: Lambda stops the container, so nothing the handler left running goes on.
    const timedOut = `Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`;
    process.send?.({ id, ...figures, error: timedOut, stopping: true } satisfies AnswerMessage, () => process.exit(1));
  });
  process.on('disconnect', () => process.exit(0));
  process.send('ready');
}
