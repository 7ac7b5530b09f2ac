import { SentinelError } from '../shared/errors.ts';

/** Where a command writes; tests pass their own to read what a user would see. */
export interface CommandOutput {
  stdout(line: string): void;
  stderr(line: string): void;
}

/** The command line itself is wrong: print the message and the usage, exit 2. */
export class UsageError extends SentinelError {}

export const processOutput: CommandOutput = {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
};
