import { parseArgs } from 'node:util';
import { editDistance } from '../shared/naming.ts';
import type { CommandOutput } from './command.ts';
import { UsageError } from './command.ts';

export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  /** What the value is, as the usage writes it: FILE, NAME, T. */
  readonly value?: string;
  /** One line: what the option does. */
  readonly description: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The parsed options: a string option is absent or non-empty, a boolean one is true or false. */
export type OptionValues<O extends OptionSpecs> = {
  readonly [K in keyof O as O[K]['type'] extends 'boolean' ? K : never]: boolean;
} & {
  readonly [K in keyof O as O[K]['type'] extends 'boolean' ? never : K]?: string;
};

export interface PositionalSpec {
  /** As the usage writes them: FILE, FILE... */
  readonly name: string;
  /** What one is, for messages: "scenario file". */
  readonly noun: string;
  readonly description: string;
  /** At least one; exactly one when `many` is false. */
  readonly many: boolean;
}

/** One `sentinel` command: what the help says about it, what it accepts, and what it does. */
export interface Command<O extends OptionSpecs = OptionSpecs> {
  readonly name: string;
  /** One line for the overview. */
  readonly summary: string;
  /** Its usage lines, each starting with `sentinel NAME`. */
  readonly usage: readonly string[];
  readonly options: O;
  /** Absent: the command takes no arguments besides its options. */
  readonly positionals?: PositionalSpec;
  /** Lines the help prints after the options: formats, environment. */
  readonly notes?: readonly string[];
  // A method, so that a command of any options fits in one list of commands.
  run(values: OptionValues<O>, positionals: readonly string[], out: CommandOutput): Promise<number>;
}

/** What a command says about itself: all of it but what it does. */
export type CommandSpec = Omit<Command, 'run'>;

/** Keeps the literal option types of a command, so that `run` sees typed values. */
export function defineCommand<O extends OptionSpecs>(command: Command<O>): Command<O> {
  return command;
}

const HELP: OptionSpec = { type: 'boolean', description: 'print this help and exit' };

export type ParsedCommandLine =
  | { readonly help: true }
  | { readonly help: false; readonly values: Record<string, string | boolean>; readonly positionals: string[] };

/**
 * Reads a command's arguments against its options, with messages that name the option and say what to write instead.
 * Node's strict parseArgs would do most of this, but its messages quote unevenly, leave empty values through and do
 * not say how to give a value that starts with a dash; here parseArgs only tokenizes.
 */
export function parseCommandLine(command: CommandSpec, args: readonly string[]): ParsedCommandLine {
  const options: OptionSpecs = { ...command.options, help: HELP };
  const { tokens } = parseArgs({
    args: [...args],
    options: {
      ...Object.fromEntries(Object.entries(command.options).map(([name, { type }]) => [name, { type }])),
      help: { type: 'boolean', short: 'h' },
    },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  if (tokens.some((token) => token.kind === 'option' && token.name === 'help' && token.value === undefined)) {
    return { help: true };
  }
  const values: Record<string, string | boolean> = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const spec: OptionSpec | undefined = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (!spec) throw new UsageError(unknownOption(token.rawName, command));
    const name = `--${token.name}`;
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${name} takes no value, but was given "${token.value}"`);
      values[token.name] = true;
      continue;
    }
    const placeholder = spec.value ?? 'VALUE';
    if (token.value === undefined) throw new UsageError(`${name} needs a value: ${name} ${placeholder}`);
    if (token.value === '') throw new UsageError(`${name} needs a value, and "${name}=" gives it none`);
    if (!token.inlineValue && token.value.length > 1 && token.value.startsWith('-')) {
      throw new UsageError(
        `${name} needs a value, but "${token.value}" reads as an option: write ${name}=${token.value}`,
      );
    }
    const earlier = values[token.name];
    if (typeof earlier === 'string' && earlier !== token.value) {
      throw new UsageError(`${name} is given twice ("${earlier}", "${token.value}"): give it once`);
    }
    values[token.name] = token.value;
  }
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.type === 'boolean') values[name] ??= false;
  }
  checkPositionals(command, positionals);
  return { help: false, values, positionals };
}

function checkPositionals(command: CommandSpec, positionals: readonly string[]): void {
  const spec = command.positionals;
  if (!spec) {
    if (positionals.length > 0) {
      throw new UsageError(`${command.name} takes no arguments besides its options, got "${positionals[0]}"`);
    }
    return;
  }
  if (positionals.length === 0) {
    throw new UsageError(`${command.name} needs ${spec.many ? 'at least one' : 'one'} ${spec.noun}`);
  }
  // A name of nothing but blanks and control characters reads as no name at all, and would be echoed back invisible.
  if (positionals.some((positional) => /^[\s\p{Cc}]*$/u.test(positional))) {
    throw new UsageError(`an empty argument is not a ${spec.noun}`);
  }
  // Blanks or control characters at either end are a paste or quoting slip, and would not show in any message.
  const ragged = positionals.find((positional) => /^[\s\p{Cc}]|[\s\p{Cc}]$/u.test(positional));
  if (ragged !== undefined) {
    throw new UsageError(
      `${JSON.stringify(ragged)} starts or ends with a blank or a control character: not a ${spec.noun}`,
    );
  }
  if (!spec.many && positionals.length > 1) {
    throw new UsageError(`${command.name} takes one ${spec.noun}, got ${positionals.length}`);
  }
}

function unknownOption(rawName: string, command: CommandSpec): string {
  const known = Object.keys(command.options).map((name) => `--${name}`);
  const close = known.find((name) => editDistance(name, rawName) <= 2);
  if (close) return `unknown option ${rawName} for ${command.name}: did you mean ${close}?`;
  return known.length > 0
    ? `unknown option ${rawName} for ${command.name}, which takes ${known.join(', ')}`
    : `unknown option ${rawName}: ${command.name} takes no options`;
}

/** The lines a usage error ends with: how to call the command, and where its options are. */
export function usageOf(command: CommandSpec): string {
  return [
    'usage:',
    ...command.usage.map((line) => `  ${line}`),
    `Run "sentinel ${command.name} --help" for every option.`,
  ].join('\n');
}

/** `sentinel COMMAND --help`: what it does, how to call it, every argument and option with one line each. */
export function helpOf(command: CommandSpec): string {
  const rows: [string, string][] = [];
  const sections: string[] = [`sentinel ${command.name}: ${command.summary}`, '', 'usage:'];
  sections.push(...command.usage.map((line) => `  ${line}`));
  if (command.positionals) rows.push([command.positionals.name, command.positionals.description]);
  const optionRows: [string, string][] = Object.entries(command.options).map(([name, spec]) => [
    spec.type === 'string' ? `--${name} ${spec.value ?? 'VALUE'}` : `--${name}`,
    spec.description,
  ]);
  optionRows.push(['-h, --help', HELP.description]);
  const width = Math.max(...[...rows, ...optionRows].map(([left]) => left.length)) + 2;
  const table = (entries: readonly [string, string][]) =>
    entries.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
  if (rows.length > 0) sections.push('', 'arguments:', ...table(rows));
  sections.push('', 'options:', ...table(optionRows));
  if (command.notes) sections.push('', ...command.notes);
  return sections.join('\n');
}
