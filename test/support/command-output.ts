import type { CommandOutput } from '../../cli/command.ts';
import { main } from '../../cli/main.ts';

/** What a user would see on each stream. */
export class CapturedCommandOutput implements CommandOutput {
  readonly out: string[] = [];
  readonly err: string[] = [];

  stdout(line: string) {
    this.out.push(line);
  }

  stderr(line: string) {
    this.err.push(line);
  }

  get stdoutText() {
    return this.out.join('\n');
  }

  get stderrText() {
    return this.err.join('\n');
  }

  /** Lines as a terminal shows them, whether printed one by one or several at once. */
  get stderrLines() {
    return this.stderrText.split('\n');
  }
}

/** Runs `sentinel ...argv` in-process and returns its exit code and what it printed. */
export async function runSentinel(...argv: string[]) {
  const output = new CapturedCommandOutput();
  const code = await main(argv, output);
  return { code, output };
}
