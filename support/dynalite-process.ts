/**
 * dynalite in a process of its own. In the process that polls, dynalite's request handling and LevelDB work share one
 * event loop with the poller's, so a step that writes ten thousand incidents waits behind its own writes being stored:
 * a fleet outage's step measured the two together, on one core. Forked, dynalite gets its own event loop (and core),
 * and what the poller's process measures is the poller's.
 *
 * Run as a child (`fork`), this module starts dynalite on a free loopback port and sends `{ port }` over IPC; it exits
 * when its parent disconnects.
 */
import { fork } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import dynalite from 'dynalite';

export interface DynaliteProcess {
  readonly endpoint: string;
  /** dynalite's own peak resident set size, read when it stops. */
  close(): Promise<{ readonly peakRssMb: number }>;
}

interface Started {
  readonly port: number;
}
interface Stopped {
  readonly peakRssMb: number;
}

/** Start dynalite in a child process and wait for it to listen. */
export async function startDynaliteProcess(): Promise<DynaliteProcess> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    // The child never needs the parent's test-runner flags (Jest's --experimental-vm-modules).
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`dynalite's process exited with ${code} before it listened`))),
  );
  const { port } = await Promise.race([new Promise<Started>((resolve) => child.once('message', resolve)), exited]);
  exited.catch(() => undefined);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      const stopped = new Promise<Stopped>((resolve) => child.once('message', resolve));
      child.send('stop');
      const figures = await stopped;
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
      return figures;
    },
  };
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  process.send({ port: (server.address() as AddressInfo).port } satisfies Started);
  process.on('message', (message) => {
    if (message !== 'stop') return;
    process.send?.({ peakRssMb: process.resourceUsage().maxRSS / 1024 } satisfies Stopped, () =>
      server.close(() => process.exit(0)),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
