import { parseArgs } from 'node:util';
import { SentinelError } from '../shared/errors.ts';
import { type CommandOutput, processOutput, UsageError } from './command.ts';
import { REPLAY_USAGE, replayCommand } from './replay-command.ts';

const USAGE = ['usage:', `  ${REPLAY_USAGE}`].join('\n');

/** Runs one `sentinel` command and returns its exit code: 0 ok, 1 a check failed, 2 bad input. */
export async function main(argv: readonly string[], out: CommandOutput = processOutput): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'replay': {
        const { values, positionals } = parseArgs({
          args: [...rest],
          allowPositionals: true,
          options: {
            json: { type: 'boolean', default: false },
            check: { type: 'boolean', default: false },
            config: { type: 'string' },
          },
        });
        return await replayCommand(
          positionals,
          { json: values.json, check: values.check, ...(values.config && { config: values.config }) },
          out,
        );
      }
      case undefined:
      case 'help':
      case '--help':
        out.stdout(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"\n${USAGE}`);
    }
  } catch (error) {
    if (error instanceof SentinelError) {
      out.stderr(`sentinel: ${error.message}`);
      return 2;
    }
    if (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      out.stderr(`sentinel: ${error.message}\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}
