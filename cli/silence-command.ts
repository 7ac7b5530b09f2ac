import { randomBytes } from 'node:crypto';
import { documentClient } from '../aws/clients.ts';
import { dynamoDbSilenceStore } from '../aws/dynamodb/silence-store.ts';
import { dynamoDbStores } from '../aws/dynamodb/stores.ts';
import { callerArn } from '../aws/sts-caller.ts';
import { readConfigFile } from '../io/input-files.ts';
import { clusterLabels } from '../shared/config/cluster-labels.ts';
import { describeSeconds, SILENCE_BOUNDS } from '../shared/engine/bounds.ts';
import type { Incident } from '../shared/engine/incident.ts';
import type { IncidentRepository, SilenceStore } from '../shared/pipeline/ports.ts';
import {
  checkSilenceRequest,
  newSilence,
  type Silence,
  SilenceError,
  type SilenceRequest,
  type SilenceVocabulary,
  silenceMatchers,
  silenceScope,
} from '../shared/pipeline/silence.ts';
import { isoSeconds } from '../shared/time.ts';
import { type CommandOutput, UsageError } from './command.ts';
import { defineCommand, type OptionSpecs, type OptionValues } from './command-line.ts';
import { stackOutputs } from './stack-outputs.ts';

const ACTIONS = ['add', 'list', 'extend', 'expire'] as const;
type Action = (typeof ACTIONS)[number];

/** The options each action takes besides --stack and --table. */
const ACTION_OPTIONS: Record<Action, readonly (keyof typeof SILENCE_OPTIONS)[]> = {
  add: ['match', 'cluster', 'rule', 'start', 'for', 'reason', 'include-pages', 'config'],
  list: ['json'],
  extend: ['for'],
  expire: [],
};

const SILENCE_OPTIONS = {
  match: {
    type: 'strings',
    value: 'NAME=VALUE',
    description:
      'add: what to silence, as amtool matches: cluster=prod-euw1, environment=staging, rule=node-churn, or NAME!=VALUE; repeat it, all must hold',
  },
  cluster: { type: 'string', value: 'NAME', description: 'add: the same as --match cluster=NAME' },
  rule: {
    type: 'string',
    value: 'ID',
    description: 'add: the same as --match rule=ID (incidents rooted in that rule)',
  },
  start: {
    type: 'string',
    value: 'TIME',
    description: 'add: when it starts, an ISO-8601 UTC time within a week (default: now)',
  },
  for: {
    type: 'string',
    value: 'DURATION',
    description: `add: how long, from its start: 30m, 2h, 1d (1 minute to 7 days; ${describeSeconds(SILENCE_BOUNDS.includePagesMaxSeconds)} with --include-pages). extend: how much longer`,
  },
  reason: { type: 'string', value: 'TEXT', description: 'add: why, for whoever reads the digest (required)' },
  'include-pages': {
    type: 'boolean',
    description: `add: hold back pages too, even a webhook outage (at most ${describeSeconds(SILENCE_BOUNDS.includePagesMaxSeconds)}, extended by someone who decides again)`,
  },
  config: {
    type: 'string',
    value: 'FILE',
    description:
      'add: the deployment configuration, whose clusters, labels and rules the matchers must name (required)',
  },
  json: { type: 'boolean', description: 'list: print JSON instead of text' },
  stack: { type: 'string', value: 'NAME', description: 'the deployed OpsStack whose table keeps the silences' },
  table: { type: 'string', value: 'NAME', description: 'the table itself, instead of --stack' },
} as const satisfies OptionSpecs;

export const SILENCE_COMMAND = defineCommand({
  name: 'silence',
  summary: 'hold back notifications by cluster, label and rule for a while, without a deploy; list, extend, expire',
  usage: [
    'sentinel silence add --match NAME=VALUE... [--start TIME] --for DURATION --reason TEXT [--include-pages] --config FILE (--stack NAME | --table NAME)',
    'sentinel silence list (--stack NAME | --table NAME) [--json]',
    'sentinel silence extend ID --for DURATION (--stack NAME | --table NAME)',
    'sentinel silence expire ID (--stack NAME | --table NAME)',
  ],
  options: SILENCE_OPTIONS,
  positionals: {
    name: 'ACTION [ID]',
    noun: 'action (add, list, extend ID or expire ID)',
    description:
      'add a silence, list the silences that hold now or later with what each held back, extend or expire one by its id',
    many: true,
  },
  notes: [
    'A silence holds back what a maintenance window holds back: tickets and blips, never a severe outage (the rules',
    'with `notify`, `notifyWhen` or `notifyAfter` in their maintenance policy page through it, and the page names the',
    'silence; docs/operating.md). Only --include-pages holds back pages, for a bounded time.',
    'The author is the caller as STS GetCallerIdentity names it; the weekly digest lists every silence and what it held.',
    'Uses the default AWS credential chain (AWS_PROFILE, AWS_REGION, ...).',
  ],
  run: (values, positionals, out) => silenceCommand(values, positionals, out),
});

type SilenceOptions = OptionValues<typeof SILENCE_OPTIONS>;

/**
 * `sentinel silence add | list | extend ID | expire ID`, against the deployed table. Times are whole seconds, as the
 * command prints them and an operator types them.
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
    throw new UsageError(`silence needs an action, add, list, extend ID or expire ID, got "${action}"`);
  }
  const misplaced = (Object.keys(SILENCE_OPTIONS) as (keyof typeof SILENCE_OPTIONS)[])
    .filter((name) => !['stack', 'table', ...ACTION_OPTIONS[action as Action]].includes(name))
    .filter((name) => given(options[name]))
    .map((name) => `--${name}`);
  if (misplaced.length > 0) {
    const owners = (name: string) =>
      ACTIONS.filter((a) => (ACTION_OPTIONS[a] as readonly string[]).includes(name.slice(2))).join(' and ');
    throw new UsageError(
      `${misplaced.join(', ')} ${misplaced.length > 1 ? 'are' : 'is'} for silence ${owners(misplaced[0] ?? '')} only`,
    );
  }
  const takesId = action === 'expire' || action === 'extend';
  if (takesId ? rest.length !== 1 : rest.length > 0) {
    throw new UsageError(
      takesId
        ? `silence ${action} takes one silence id: sentinel silence list shows them`
        : `silence ${action} takes no argument besides its options, got "${rest[0]}"`,
    );
  }
  if (Boolean(options.stack) === Boolean(options.table)) {
    throw new UsageError(`give either --stack NAME or --table NAME, not ${options.stack ? 'both' : 'neither'}`);
  }
  const table = async () => ({
    client: documentClient(),
    table: options.table ?? (await stackOutputs(options.stack ?? '')).TableName,
    now: () => now,
  });
  switch (action as Action) {
    case 'add': {
      // Checked whole, against the configuration, before AWS is asked anything.
      const checked = checkedRequest(options, now);
      return addSilence(checked, dynamoDbSilenceStore(await table()), out, now, newId());
    }
    case 'list': {
      const where = await table();
      return listSilences(dynamoDbSilenceStore(where), dynamoDbStores(where).incidents, out, now, options.json);
    }
    case 'extend': {
      if (options.for === undefined) throw new UsageError('silence extend needs --for DURATION: how much longer');
      return extendSilence(rest[0] ?? '', options.for, dynamoDbSilenceStore(await table()), out, now);
    }
    case 'expire':
      return expireSilence(rest[0] ?? '', dynamoDbSilenceStore(await table()), out, now);
  }
}

function given(value: string | boolean | readonly string[] | undefined): boolean {
  return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== false;
}

/** The silence `add` asks for, checked whole against the configuration's clusters, labels and rules. */
function checkedRequest(options: SilenceOptions, now: number): { request: SilenceRequest; known: SilenceVocabulary } {
  const missing = (['for', 'reason', 'config'] as const).filter((name) => options[name] === undefined);
  if (missing.length > 0) throw new UsageError(`silence add needs ${missing.map((name) => `--${name}`).join(', ')}`);
  const { config, ruleSet } = readConfigFile(options.config ?? '');
  const request: SilenceRequest = {
    matchers: [
      ...(options.cluster !== undefined ? [`cluster=${options.cluster}`] : []),
      ...(options.rule !== undefined ? [`rule=${options.rule}`] : []),
      ...options.match,
    ],
    ...(options.start !== undefined && { start: options.start }),
    for: options.for ?? '',
    reason: options.reason ?? '',
    includePages: options['include-pages'],
  };
  const known = {
    clusters: config.clusters.map((cluster) => clusterLabels(cluster, config.ops)),
    rules: ruleSet.rules.map((r) => r.id),
    identities: config.clusters,
  };
  checkSilenceRequest(request, known, now);
  return { request, known };
}

async function addSilence(
  { request, known }: ReturnType<typeof checkedRequest>,
  store: SilenceStore,
  out: CommandOutput,
  now: number,
  id: string,
) {
  const silence = newSilence(request, { id, at: now, author: await callerArn(), known });
  await store.add(silence);
  out.stdout(`Silence ${silence.id} added: ${describe(silence)}.`);
  out.stdout(
    silence.includePages
      ? 'It holds back pages too, even a webhook outage, until it ends; each page it holds back is listed by silence list.'
      : 'A severe outage still pages through it, and the page names it.',
  );
  out.stdout(
    `Extend it with: sentinel silence extend ${silence.id} --for DURATION; end it early with: sentinel silence expire ${silence.id}`,
  );
  return 0;
}

/** Every silence that holds now or later, soonest end first, each with the incidents it has held back. */
async function listSilences(
  store: SilenceStore,
  incidents: IncidentRepository,
  out: CommandOutput,
  now: number,
  json: boolean,
) {
  const silences = (await store.endingAfter(now)).sort((a, b) => a.to - b.to || a.id.localeCompare(b.id));
  const since = Math.min(...silences.map((s) => s.from));
  const held = silences.length > 0 && since < now ? await incidents.overlapping(since, now + 1) : [];
  if (json) {
    out.stdout(
      JSON.stringify(
        silences.map((silence) => silenceJson(silence, heldBack(silence, held))),
        null,
        2,
      ),
    );
    return 0;
  }
  if (silences.length === 0) {
    out.stdout('No silence holds now or later.');
    return 0;
  }
  for (const silence of silences) {
    const lines = heldBack(silence, held).map(
      (i) =>
        `${i.severity} ${i.rule} on ${i.cluster} since ${isoSeconds(Date.parse(i.openedAt))}${i.notifiedAt ? `, shown ${i.notifiedAt}` : ''}`,
    );
    out.stdout(`${silence.id}  ${describe(silence)}`);
    out.stdout(`    held back: ${lines.length > 0 ? lines.join('; ') : 'nothing'}`);
  }
  return 0;
}

function heldBack(silence: Silence, incidents: readonly Incident[]): Incident[] {
  return incidents
    .filter((incident) => incident.mutedBy?.silence === silence.id)
    .sort((a, b) => a.openedAt.localeCompare(b.openedAt));
}

/** A silence as `silence list --json` prints it: times in ISO-8601 UTC, matchers as amtool writes them. */
function silenceJson(silence: Silence, held: readonly Incident[]) {
  return {
    id: silence.id,
    matchers: silenceMatchers(silence),
    includePages: silence.includePages === true,
    from: isoSeconds(silence.from),
    to: isoSeconds(silence.to),
    author: silence.author,
    reason: silence.reason,
    ...(silence.expired && { expired: { at: isoSeconds(silence.expired.at), by: silence.expired.by } }),
    ...(silence.extended && {
      extended: silence.extended.map((e) => ({ at: isoSeconds(e.at), by: e.by, from: isoSeconds(e.from) })),
    }),
    heldBack: held.map((i) => ({
      incident: i.id,
      rule: i.rule,
      cluster: i.cluster,
      severity: i.severity,
      openedAt: isoSeconds(Date.parse(i.openedAt)),
      ...(i.notifiedAt && { shownAt: i.notifiedAt }),
    })),
  };
}

async function extendSilence(id: string, duration: string, store: SilenceStore, out: CommandOutput, now: number) {
  const extended = await store.extend(id, duration, now, await callerArn());
  if (!extended) throw new SilenceError(`no silence ${id} holds now: sentinel silence list shows those that do`);
  out.stdout(`Silence ${id} extended to ${isoSeconds(extended.to)}: ${describe(extended)}.`);
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
  return `${silenceScope(silence)}, ${isoSeconds(silence.from)} to ${isoSeconds(silence.to)}, by ${silence.author}: ${JSON.stringify(silence.reason)}`;
}
