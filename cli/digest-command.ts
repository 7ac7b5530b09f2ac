import { documentClient } from '../aws/clients.ts';
import { dynamoDbStores } from '../aws/dynamodb/stores.ts';
import { readConfigFile, readScenarioFile } from '../io/input-files.ts';
import { compileRuleSet } from '../shared/config/deployment-config.ts';
import type { Digest } from '../shared/digest/digest.ts';
import { deploymentDigestInput, digestOfWeek } from '../shared/digest/digest-of-week.ts';
import { weekOf } from '../shared/digest/iso-week.ts';
import { renderDigest } from '../shared/digest/render-digest.ts';
import { replayDigest } from '../shared/digest/replay-digest.ts';
import { SentinelError } from '../shared/errors.ts';
import { replayScenario } from '../shared/scenario/replay.ts';
import { AwsRequestError } from './aws-errors.ts';
import { type CommandOutput, progress, UsageError } from './command.ts';
import { defineCommand } from './command-line.ts';

export const DIGEST_COMMAND = defineCommand({
  name: 'digest',
  summary: 'print the weekly digest as its email would read, from a replay or from a deployed store',
  usage: [
    'sentinel digest --from-replay SCENARIO [--config CONFIG] [--week YYYY-Www] [--json]',
    'sentinel digest --config CONFIG --week YYYY-Www [--table TABLE] [--json]',
  ],
  options: {
    'from-replay': { type: 'string', value: 'SCENARIO', description: 'preview the digest of a replayed scenario file' },
    config: { type: 'string', value: 'CONFIG', description: 'the deployment configuration: rules, time zone, margin' },
    week: { type: 'string', value: 'YYYY-Www', description: 'the ISO week to report, like 2026-W07' },
    table: { type: 'string', value: 'TABLE', description: 'the deployed incidents table (default: $SENTINEL_TABLE)' },
    json: { type: 'boolean', description: 'print the digest as JSON instead of its email text' },
  },
  notes: ['With --config and no --from-replay, reads the deployed table with the default AWS credential chain.'],
  run: ({ 'from-replay': fromReplay, ...values }, _, out) =>
    digestCommand({ ...values, ...(fromReplay !== undefined && { fromReplay }) }, out),
});

export interface DigestOptions {
  readonly fromReplay?: string;
  readonly config?: string;
  readonly week?: string;
  readonly table?: string;
  readonly json?: boolean;
}

/** The deployed store could not be read: no credentials, no such table, no network. */
export class StoreReadError extends AwsRequestError {}

/**
 * Prints the weekly digest as its email would read (or its JSON): from a replayed scenario, to preview it without
 * AWS, or from a deployed store, for any week it still holds.
 */
export async function digestCommand(options: DigestOptions, out: CommandOutput): Promise<number> {
  const digest = options.fromReplay ? await fromReplay(options.fromReplay, options) : await fromStore(options, out);
  if (options.json) {
    out.stdout(JSON.stringify(digest, null, 2));
  } else {
    const { subject, bodies } = renderDigest(digest);
    out.stdout(`Subject: ${subject}\n\n${bodies.email}`);
  }
  return 0;
}

async function fromReplay(file: string, options: DigestOptions): Promise<Digest> {
  if (options.table !== undefined) {
    throw new UsageError('--table reads a deployed store; it does not go with --from-replay');
  }
  const loaded = options.config ? readConfigFile(options.config) : undefined;
  const ruleSet = loaded?.ruleSet ?? compileRuleSet([], 'rules');
  const result = await replayScenario(readScenarioFile(file), {
    ruleSet,
    ...(loaded && { config: loaded.config }),
  });
  return replayDigest(result, {
    ruleSet,
    ...(loaded && { config: loaded.config }),
    ...(options.week !== undefined && { week: options.week }),
  });
}

async function fromStore(options: DigestOptions, out: CommandOutput): Promise<Digest> {
  if (options.config === undefined || options.week === undefined) {
    throw new UsageError('digest needs --from-replay SCENARIO, or --config CONFIG with --week YYYY-Www');
  }
  const table = options.table ?? process.env.SENTINEL_TABLE;
  if (!table) {
    throw new UsageError(`digest --config reads the deployed table: give --table TABLE or set SENTINEL_TABLE`);
  }
  const deployed = readConfigFile(options.config);
  const week = weekOf(options.week, deployed.config.digest.timeZone);
  const client = documentClient();
  const { activityLog } = dynamoDbStores({ client, table, now: Date.now });
  progress(out, `Reading the week ${options.week} from table ${table}: incidents, notifications, polls, silences...`);
  try {
    return await digestOfWeek(deploymentDigestInput(activityLog, deployed, table), week);
  } catch (error) {
    if (error instanceof SentinelError) throw error;
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new StoreReadError(`cannot read table "${table}": ${reason.split('\n')[0]}`, { cause: error });
  } finally {
    client.destroy();
  }
}
