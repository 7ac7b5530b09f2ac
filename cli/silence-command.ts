import { randomBytes } from 'node:crypto';
import { documentClient } from '../aws/clients.ts';
import { dynamoDbSilenceStore } from '../aws/dynamodb-silence-store.ts';
import { callerArn } from '../aws/sts-caller.ts';
import { readConfigFile } from '../io/input-files.ts';
import type { SilenceStore } from '../shared/pipeline/ports.ts';
import {
  checkSilenceRequest,
  newSilence,
  type Silence,
  type SilenceContext,
  SilenceError,
  type SilenceRequest,
} from '../shared/pipeline/silence.ts';
import { isoSeconds } from '../shared/time.ts';
import { type CommandOutput, UsageError } from './command.ts';
import { defineCommand, type OptionSpecs, type OptionValues } from './command-line.ts';
import { stackOutputs } from './stack-outputs.ts';

const ACTIONS = ['add', 'list', 'expire'] as const;
type Action = (typeof ACTIONS)[number];

/** The options only `silence add` takes. */
const ADD_ONLY = ['cluster', 'rule', 'for', 'reason', 'config'] as const;

const SILENCE_OPTIONS = {
  cluster: { type: 'string', value: 'NAME', description: 'add: the cluster to silence' },
  rule: { type: 'string', value: 'ID', description: 'add: only incidents rooted in this rule (default: every rule)' },
  for: {
    type: 'string',
    value: 'DURATION',
    description: 'add: how long, from now: 30m, 2h, 1d (1 minute to 7 days)',
  },
  reason: { type: 'string', value: 'TEXT', description: 'add: why, for whoever reads the digest (required)' },
  config: {
    type: 'string',
    value: 'FILE',
    description: 'add: check --cluster and --rule against this deployment configuration',
  },
  stack: { type: 'string', value: 'NAME', description: 'the deployed OpsStack whose table keeps the silences' },
  table: { type: 'string', value: 'NAME', description: 'the table itself, instead of --stack' },
} as const satisfies OptionSpecs;

export const SILENCE_COMMAND = defineCommand({
  name: 'silence',
  summary: "hold back a cluster's tickets for a while, without a deploy; list and expire silences",
  usage: [
    'sentinel silence add --cluster NAME [--rule ID] --for DURATION --reason TEXT (--stack NAME | --table NAME) [--config FILE]',
    'sentinel silence list (--stack NAME | --table NAME)',
    'sentinel silence expire ID (--stack NAME | --table NAME)',
  ],
  options: SILENCE_OPTIONS,
  positionals: {
    name: 'ACTION [ID]',
    noun: 'action (add, list or expire ID)',
    description: 'add a silence, list the silences that hold now or later, or expire one by its id',
    many: true,
  },
  notes: [
    'A silence holds back what a maintenance window holds back: tickets and blips, never a severe outage (the rules',
    'with `notify`, `notifyWhen` or `notifyAfter` in their maintenance policy page through it; docs/rules.md).',
    'The author is the caller as STS GetCallerIdentity names it; the weekly digest lists every silence and what it held.',
    'Uses the default AWS credential chain (AWS_PROFILE, AWS_REGION, ...).',
  ],
  run: (values, positionals, out) => silenceCommand(values, positionals, out),
});

type SilenceOptions = OptionValues<typeof SILENCE_OPTIONS>;
type SilenceKnown = Pick<SilenceContext, 'clusters' | 'rules'>;

/**
 * `sentinel silence add | list | expire ID`, against the deployed table. Times are whole seconds, as the command
 * prints them and an operator types them.
 */
export async function silenceCommand(
  options: SilenceOptions,
  positionals: readonly string[],
  out: CommandOutput,
  now = Math.floor(Date.now() / 1000) * 1000,
  newId: () => string = () => randomBytes(4).toString('hex'),
): Promise<number> {
  const [action, ...rest] = positionals;
  if (!ACTIONS.includes(action as Action)) {
    throw new UsageError(`silence needs an action, add, list or expire ID, got "${action}"`);
  }
  if (action !== 'add') {
    const misplaced = ADD_ONLY.filter((name) => options[name] !== undefined).map((name) => `--${name}`);
    if (misplaced.length > 0)
      throw new UsageError(`${misplaced.join(', ')} ${misplaced.length > 1 ? 'are' : 'is'} for silence add only`);
  }
  if (action === 'expire' ? rest.length !== 1 : rest.length > 0) {
    throw new UsageError(
      action === 'expire'
        ? 'silence expire takes one silence id: sentinel silence list shows them'
        : `silence ${action} takes no argument besides its options, got "${rest[0]}"`,
    );
  }
  if (Boolean(options.stack) === Boolean(options.table)) {
    throw new UsageError(`give either --stack NAME or --table NAME, not ${options.stack ? 'both' : 'neither'}`);
  }
  const store = async () =>
    dynamoDbSilenceStore({
      client: documentClient(),
      table: options.table ?? (await stackOutputs(options.stack ?? '')).TableName,
      now: () => now,
    });
  switch (action as Action) {
    case 'add': {
      // Checked whole before AWS is asked anything.
      const checked = checkedRequest(options);
      return addSilence(checked, await store(), out, now, newId());
    }
    case 'list':
      return listSilences(await store(), out, now);
    case 'expire':
      return expireSilence(rest[0] ?? '', await store(), out, now);
  }
}

/** The silence `add` asks for, checked whole: against the configuration when one is given. */
function checkedRequest(options: SilenceOptions): { request: SilenceRequest; known: SilenceKnown } {
  const missing = (['cluster', 'for', 'reason'] as const).filter((name) => options[name] === undefined);
  if (missing.length > 0) throw new UsageError(`silence add needs ${missing.map((name) => `--${name}`).join(', ')}`);
  const configured = options.config === undefined ? undefined : readConfigFile(options.config);
  const request = {
    cluster: options.cluster ?? '',
    ...(options.rule !== undefined && { rule: options.rule }),
    for: options.for ?? '',
    reason: options.reason ?? '',
  };
  const known = configured
    ? { clusters: configured.config.clusters.map((c) => c.name), rules: configured.ruleSet.rules.map((r) => r.id) }
    : {};
  checkSilenceRequest(request, known);
  return { request, known };
}

async function addSilence(
  { request, known }: ReturnType<typeof checkedRequest>,
  store: SilenceStore,
  out: CommandOutput,
  now: number,
  id: string,
) {
  const silence = newSilence(request, { id, at: now, author: await callerArn(), ...known });
  await store.add(silence);
  out.stdout(`Silence ${silence.id} added: ${describe(silence)}.`);
  out.stdout(`A severe outage still pages through it. End it early with: sentinel silence expire ${silence.id}`);
  return 0;
}

async function listSilences(store: SilenceStore, out: CommandOutput, now: number) {
  const silences = (await store.endingAfter(now)).sort((a, b) => a.to - b.to);
  if (silences.length === 0) {
    out.stdout('No silence holds now or later.');
    return 0;
  }
  for (const silence of silences) out.stdout(`${silence.id}  ${describe(silence)}`);
  return 0;
}

async function expireSilence(id: string, store: SilenceStore, out: CommandOutput, now: number) {
  const expired = await store.expire(id, now, await callerArn());
  if (!expired) {
    throw new SilenceError(`no silence ${id} holds now: sentinel silence list shows those that do`);
  }
  out.stdout(`Silence ${id} expired at ${isoSeconds(now)}: ${describe(expired)}.`);
  return 0;
}

function describe(silence: Silence): string {
  const scope = `${silence.cluster ?? 'every cluster'}, ${silence.rule ?? 'every rule'}`;
  return `${scope}, ${isoSeconds(silence.from)} to ${isoSeconds(silence.to)}, by ${silence.author}: ${JSON.stringify(silence.reason)}`;
}
