import { SentinelError } from '../shared/errors.ts';

/** Where a command writes; tests pass their own to read what a user would see. */
export interface CommandOutput {
  stdout(line: string): void;
  stderr(line: string): void;
  /**
   * How far a command that takes more than a few seconds has got: to stderr when it is a terminal, nowhere when it is
   * a file or a pipe (a log, CI), nor where an output does not take it.
   */
  progress?(line: string): void;
}

/** The command line itself is wrong: print the message and the usage, exit 2. */
export class UsageError extends SentinelError {}

export const processOutput: CommandOutput = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
  progress: (line) => {
    if (process.stderr.isTTY) process.stderr.write(`${line}\n`);
  },
};

/** Report progress where the output takes it. */
export function progress(out: CommandOutput, line: string): void {
  out.progress?.(line);
}

/**
 * How often, at most, a long command says how far it has got while it works: often enough that a terminal shows it
 * moving, rarely enough to be read, and a few lines a minute in a terminal's scrollback.
 */
export const PROGRESS_INTERVAL_MS = 5_000;

/**
 * Awaits `work`, saying `describe()` where the output takes progress every `intervalMs` meanwhile, when it has
 * changed. A run that said anything says where it ended too, so that its last line is not a count stopped halfway; a
 * run shorter than `intervalMs` says nothing.
 */
export async function withProgress<T>(
  out: CommandOutput,
  describe: () => string,
  work: Promise<T>,
  intervalMs = PROGRESS_INTERVAL_MS,
): Promise<T> {
  if (!out.progress) return work;
  let said: string | undefined;
  const say = () => {
    const line = describe();
    if (line !== said) progress(out, line);
    said = line;
  };
  const timer = setInterval(say, intervalMs);
  try {
    const result = await work;
    if (said !== undefined) say();
    return result;
  } finally {
    clearInterval(timer);
  }
}
