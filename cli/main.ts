import { readFileSync } from 'node:fs';
import { configJsonSchema } from '../shared/config/config-json-schema.ts';
import { SentinelError } from '../shared/errors.ts';
import { awsFailure, EXIT_CODES } from './aws-errors.ts';
import { type CommandOutput, processOutput, UsageError } from './command.ts';
import { type Command, defineCommand, helpOf, type OptionValues, parseCommandLine, usageOf } from './command-line.ts';
import { DEPLOY_PLAN_COMMAND } from './deploy-plan-command.ts';
import { DIGEST_COMMAND } from './digest-command.ts';
import { DOCTOR_COMMAND } from './doctor-command.ts';
import { BACKTEST_COMMAND, EXPORT_SCENARIO_COMMAND } from './history-commands.ts';
import { INCIDENTS_COMMAND } from './incidents-command.ts';
import { POLL_COMMAND } from './poll-command.ts';
import { REPLAY_COMMAND } from './replay-command.ts';
import { SILENCE_COMMAND } from './silence-command.ts';
import { TEST_PAGE_COMMAND } from './test-page-command.ts';
import { VALIDATE_CONFIG_COMMAND } from './validate-config-command.ts';

const CONFIG_SCHEMA_COMMAND = defineCommand({
  name: 'config-schema',
  summary: "print the configuration's JSON Schema, which editors use to check and complete config files",
  usage: ['sentinel config-schema > config/sentinel.schema.json'],
  options: {},
  run: async (_values, _positionals, out) => {
    out.stdout(JSON.stringify(configJsonSchema(), null, 2));
    return 0;
  },
});

/** Every command, in the order the overview lists them. */
export const COMMANDS: readonly Command[] = [
  REPLAY_COMMAND,
  VALIDATE_CONFIG_COMMAND,
  DEPLOY_PLAN_COMMAND,
  POLL_COMMAND,
  DOCTOR_COMMAND,
  BACKTEST_COMMAND,
  EXPORT_SCENARIO_COMMAND,
  DIGEST_COMMAND,
  TEST_PAGE_COMMAND,
  SILENCE_COMMAND,
  INCIDENTS_COMMAND,
  CONFIG_SCHEMA_COMMAND,
];

const USAGE = [
  'usage:',
  ...COMMANDS.flatMap((command) => command.usage.map((line) => `  ${line}`)),
  '  sentinel COMMAND --help',
  '  sentinel --version',
].join('\n');

const OVERVIEW = [
  'sentinel: replay incidents through the k8s-incident-sentinel pipeline, check its configuration, try it on AWS',
  '',
  USAGE,
  '',
  'commands:',
  ...COMMANDS.map((command) => `  ${command.name.padEnd(17)}${command.summary}`),
  '',
  'Exit codes: 0 done, 1 a check, an expectation or a publish failed, 2 the command line or an input file is wrong,',
  '3 AWS or the network could not be asked (credentials, permissions, throttling, an endpoint out of reach).',
].join('\n');

function packageVersion(): string {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return String((manifest as { version?: unknown }).version);
}

/**
 * Runs one `sentinel` command and returns its exit code (EXIT_CODES): 0 ok, 1 a check or a publish failed, 2 bad
 * input, 3 AWS or the network could not be asked. Only a bug prints a stack.
 */
export async function main(argv: readonly string[], out: CommandOutput = processOutput): Promise<number> {
  const [name, ...args] = argv;
  switch (name) {
    case undefined:
      out.stderr(USAGE);
      return 2;
    case 'help':
    case '--help':
    case '-h':
      return help(args[0], out);
    case '--version':
      out.stdout(`sentinel ${packageVersion()}`);
      return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const hint = name.startsWith('-') ? ': options go after the command, and "sentinel COMMAND --help" lists them' : '';
    out.stderr(`sentinel: unknown command "${name}"${hint}\n${USAGE}`);
    return 2;
  }
  try {
    const parsed = parseCommandLine(command, args);
    if (parsed.help) {
      out.stdout(helpOf(command));
      return 0;
    }
    return await command.run(parsed.values as OptionValues<typeof command.options>, parsed.positionals, out);
  } catch (error) {
    if (error instanceof UsageError) {
      out.stderr(`sentinel: ${error.message}\n${usageOf(command)}`);
      return EXIT_CODES.usage;
    }
    const failure = awsFailure(error);
    if (failure) {
      out.stderr(`sentinel: ${failure.name}: ${failure.message}`);
      return EXIT_CODES.unreachable;
    }
    if (error instanceof SentinelError) {
      out.stderr(`sentinel: ${error.message}`);
      return EXIT_CODES.usage;
    }
    throw error;
  }
}

function help(topic: string | undefined, out: CommandOutput): number {
  if (topic === undefined) {
    out.stdout(OVERVIEW);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === topic);
  if (!command) {
    out.stderr(`sentinel: unknown command "${topic}"\n${USAGE}`);
    return 2;
  }
  out.stdout(helpOf(command));
  return 0;
}
