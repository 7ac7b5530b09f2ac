import { parseArgs } from 'node:util';
import { configJsonSchema } from '../shared/config/config-json-schema.ts';
import { SentinelError } from '../shared/errors.ts';
import { type CommandOutput, processOutput, UsageError } from './command.ts';
import { DIGEST_USAGE, digestCommand } from './digest-command.ts';
import { BACKTEST_USAGE, backtestCommand, EXPORT_USAGE, exportScenarioCommand } from './history-commands.ts';
import { POLL_USAGE, pollCommand } from './poll-command.ts';
import { REPLAY_USAGE, replayCommand } from './replay-command.ts';
import { TEST_PAGE_USAGE, testPageCommand } from './test-page-command.ts';
import { VALIDATE_CONFIG_USAGE, validateConfigCommand } from './validate-config-command.ts';

const USAGE = [
  'usage:',
  `  ${REPLAY_USAGE}`,
  `  ${VALIDATE_CONFIG_USAGE}`,
  `  ${POLL_USAGE}`,
  `  ${BACKTEST_USAGE}`,
  `  ${EXPORT_USAGE}`,
  `  ${DIGEST_USAGE}`,
  `  ${TEST_PAGE_USAGE}`,
  '  sentinel config-schema > config/sentinel.schema.json',
].join('\n');

const HISTORY_OPTIONS = {
  config: { type: 'string' },
  cluster: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
} as const;

/** Runs one `sentinel` command and returns its exit code: 0 ok, 1 a check or a publish failed, 2 bad input. */
export async function main(argv: readonly string[], out: CommandOutput = processOutput): Promise<number> {
  const [command, ...rest] = argv;
  const args = [...rest];
  try {
    switch (command) {
      case 'replay': {
        const { values, positionals } = parseArgs({
          args,
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
      case 'validate-config': {
        const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
        const [file] = positionals;
        if (!file || positionals.length > 1)
          throw new UsageError(`give one configuration file\nusage: ${VALIDATE_CONFIG_USAGE}`);
        return await validateConfigCommand(file, out);
      }
      case 'poll': {
        const { values } = parseArgs({
          args,
          options: {
            once: { type: 'boolean', default: false },
            config: { type: 'string' },
            'dry-run': { type: 'boolean', default: false },
            stack: { type: 'string' },
          },
        });
        return await pollCommand({ ...values, dryRun: values['dry-run'] }, out);
      }
      case 'backtest':
        return await backtestCommand(parseArgs({ args, options: HISTORY_OPTIONS }).values, out);
      case 'export-scenario':
        return await exportScenarioCommand(parseArgs({ args, options: HISTORY_OPTIONS }).values, out);
      case 'config-schema':
        out.stdout(JSON.stringify(configJsonSchema(), null, 2));
        return 0;
      case 'digest': {
        const { values } = parseArgs({
          args,
          options: {
            'from-replay': { type: 'string' },
            config: { type: 'string' },
            week: { type: 'string' },
            table: { type: 'string' },
            json: { type: 'boolean', default: false },
          },
        });
        const { 'from-replay': fromReplay, json, ...rest } = values;
        return await digestCommand({ json, ...(fromReplay && { fromReplay }), ...rest }, out);
      }
      case 'test-page':
        return await testPageCommand(parseArgs({ args, options: { stack: { type: 'string' } } }).values, out);
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
    // Matched by code, not by class: under a test runner's module sandbox the TypeError comes from another realm.
    const parseError = error as { code?: unknown; message?: string };
    if (String(parseError?.code).startsWith('ERR_PARSE_ARGS')) {
      out.stderr(`sentinel: ${parseError.message}\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}
