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
