import { readConfigFile } from '../io/input-files.ts';
import { configVerdict } from '../shared/config/config-verdict.ts';
import { clusterSchema, type LoadedConfig } from '../shared/config/deployment-config.ts';
import { InputError, shownFile } from '../shared/errors.ts';
import type { CommandOutput } from './command.ts';
import { UsageError } from './command.ts';
import { defineCommand } from './command-line.ts';

export interface ValidateConfigOptions {
  readonly strict: boolean;
  readonly region?: string;
  readonly json?: boolean;
}

export const VALIDATE_CONFIG_COMMAND = defineCommand({
  name: 'validate-config',
  summary: 'check a deployment configuration the way cdk synth does, without AWS',
  usage: ['sentinel validate-config FILE [--strict] [--region REGION] [--json]'],
  positionals: {
    name: 'FILE',
    noun: 'configuration file',
    description: 'the deployment configuration, e.g. config/sentinel.json',
    many: false,
  },
  options: {
    strict: {
      type: 'boolean',
      description: 'exit 1 when there are warnings (no paging subscriber, ...), as CI should',
    },
    region: {
      type: 'string',
      value: 'REGION',
      description:
        "the ops stack's region, checked as a cluster's is (no verdict depends on it: every tripwire is in its cluster's own Region)",
    },
    json: {
      type: 'boolean',
      description: 'print the verdict as JSON ({ file, valid, errors, warnings }); the exit code is the same',
    },
  },
  notes: ['Errors exit 2, as they stop cdk synth; warnings are the ones synth prints as CDK warnings.'],
  run: (values, [file], out) => validateConfigCommand(file ?? '', values, out),
});

/** The verdict synth gives (shared/config/config-verdict.ts): errors exit 2, warnings print, and fail with --strict. */
export async function validateConfigCommand(
  file: string,
  options: ValidateConfigOptions,
  out: CommandOutput,
): Promise<number> {
  // A region as the configuration writes a cluster's, checked by the same schema.
  const region = options.region !== undefined ? clusterSchema.shape.region.safeParse(options.region) : undefined;
  if (region?.success === false) {
    throw new UsageError(
      `--region "${options.region}": ${region.error.issues[0]?.message ?? 'expected an AWS region'}`,
    );
  }
  let loaded: LoadedConfig;
  try {
    loaded = readConfigFile(file);
  } catch (error) {
    if (!(options.json && error instanceof InputError && error.file === file)) throw error;
    out.stdout(JSON.stringify({ file, valid: false, errors: error.problems, warnings: [] }, null, 2));
    out.stderr(
      `sentinel: ${shownFile(file)} is not valid: ${error.problems.length} error(s), listed in the JSON on stdout`,
    );
    return 2;
  }
  const { config, ruleSet } = loaded;
  const { errors, warnings } = configVerdict(config);
  if (options.json) {
    out.stdout(JSON.stringify({ file, valid: errors.length === 0, errors, warnings }, null, 2));
    if (errors.length > 0) {
      out.stderr(`sentinel: ${shownFile(file)} is not valid: ${errors.length} error(s), listed in the JSON on stdout`);
      return 2;
    }
    return options.strict && warnings.length > 0 ? 1 : 0;
  }
  if (errors.length > 0) throw new InputError(file, errors);
  if (warnings.length > 0) {
    out.stderr(
      `sentinel: ${file} has ${warnings.length} warning(s):\n${warnings.map((w) => `  - ${w.path}: ${w.message}`).join('\n')}`,
    );
  }
  if (options.strict && warnings.length > 0) {
    out.stderr(`sentinel: --strict fails on the warnings of ${file}: fix them, or leave --strict out`);
    return 1;
  }
  const custom = config.rules.custom.length;
  const subscribers = [...config.subscriptions.paging, ...config.subscriptions.notice].flatMap(
    (s) => s.subscribers,
  ).length;
  const withWarnings = warnings.length > 0 ? `, with ${warnings.length} warning(s)` : '';
  out.stdout(
    `${file} is valid${withWarnings}: ${config.clusters.length} cluster(s), ${ruleSet.rules.length} rules (${custom} custom), ${subscribers} subscriber(s), ${config.digest.recipients.length} digest recipient(s), digest ${config.digest.day} ${config.digest.time} ${config.digest.timeZone}.`,
  );
  return 0;
}
