import { SNSClient } from '@aws-sdk/client-sns';
import { documentClient } from '../aws/clients.ts';
import { DynamoDbHandResolutionStore } from '../aws/dynamodb/hand-resolution-store.ts';
import { dynamoDbStores } from '../aws/dynamodb/stores.ts';
import { DynamoDbTable } from '../aws/dynamodb/table.ts';
import { SnsNotifier } from '../aws/sns/notifier.ts';
import { callerArn } from '../aws/sts-caller.ts';
import { readConfigFile, readScenarioFile } from '../io/input-files.ts';
import { compileRuleSet, type LoadedConfig } from '../shared/config/deployment-config.ts';
import { integrationsFor, pagingIntegrations } from '../shared/delivery/paging-integrations.ts';
import type { HandResolution } from '../shared/engine/hand-resolution.ts';
import type { Incident } from '../shared/engine/incident.ts';
import { type Notification, topicOf } from '../shared/engine/notification.ts';
import { explainIncident, type NotificationRoute, renderExplanation } from '../shared/incidents/explain-incident.ts';
import {
  type FleetIncident,
  findFleetIncident,
  fleetIncidents,
  renderIncidentList,
  summarize,
} from '../shared/incidents/fleet-incidents.ts';
import { HandResolveError, handResolution, handResolveNotification } from '../shared/incidents/hand-resolve.ts';
import { deliverPending } from '../shared/pipeline/poll.ts';
import type { NotificationRecord, PipelineStores } from '../shared/pipeline/ports.ts';
import { replayScenario } from '../shared/scenario/replay.ts';
import { isoSeconds } from '../shared/time.ts';
import { type CommandOutput, progress, UsageError } from './command.ts';
import { defineCommand, type OptionSpecs, type OptionValues } from './command-line.ts';
import { type StackOutputs, stackOutputs } from './stack-outputs.ts';

const ACTIONS = ['list', 'show', 'resolve'] as const;
type Action = (typeof ACTIONS)[number];

/** How far back `show` looks for a resolved incident: the table keeps resolved incidents and notifications 35 days. */
const RETENTION_MS = 35 * 86_400_000;
/** How long the command's claim on the resolve's delivery holds off a poll that would send it at the same time. */
const DELIVERY_LEASE_MS = 60_000;

const INCIDENTS_OPTIONS = {
  stack: { type: 'string', value: 'NAME', description: 'the deployed OpsStack whose table keeps the incidents' },
  table: { type: 'string', value: 'NAME', description: 'the table itself, instead of --stack' },
  scenario: {
    type: 'string',
    value: 'FILE',
    description: 'show: explain an incident of this scenario, replayed, instead of one in the table',
  },
  config: {
    type: 'string',
    value: 'FILE',
    description: 'the deployment configuration: its rules, and the paging integrations each notification reaches',
  },
  reason: {
    type: 'string',
    value: 'TEXT',
    description: 'resolve: why, for whoever reads the incident later (required)',
  },
  json: { type: 'boolean', description: 'list, show: print JSON instead of text' },
} as const satisfies OptionSpecs;

type IncidentsOptions = OptionValues<typeof INCIDENTS_OPTIONS>;

export const INCIDENTS_COMMAND = defineCommand({
  name: 'incidents',
  summary: 'list the open incidents, explain why one paged, resolve one by hand',
  usage: [
    'sentinel incidents list (--stack NAME | --table NAME) [--json]',
    'sentinel incidents show ID (--stack NAME | --table NAME | --scenario FILE) [--config FILE] [--json]',
    'sentinel incidents resolve ID --reason TEXT (--stack NAME | --table NAME) [--config FILE]',
  ],
  options: INCIDENTS_OPTIONS,
  positionals: {
    name: 'ACTION [ID]',
    noun: 'action (list, show ID or resolve ID)',
    description: 'list the open incidents, show one (its id, or the id of one of its clusters), or resolve one',
    many: true,
  },
  notes: [
    'An incident here is a fleet incident: one root cause on one or more clusters, paged about once.',
    'resolve sends a resolve everywhere its page went, through the outbox as the poller does (with --stack now, with',
    '--table at the next poll), recorded with the caller STS GetCallerIdentity names. While its rules still fire, the',
    'incident stays open but quiet: no reminder, update or resolve follows, and nothing pages again until its rules',
    'have gone clear for the hold-down and fire afresh (docs/operating.md).',
    'Uses the default AWS credential chain (AWS_PROFILE, AWS_REGION, ...).',
  ],
  run: (values, positionals, out) => incidentsCommand(values, positionals, out),
});

/** `sentinel incidents list | show ID | resolve ID`. */
export async function incidentsCommand(
  options: IncidentsOptions,
  positionals: readonly string[],
  out: CommandOutput,
  now = Math.floor(Date.now() / 1000) * 1000,
): Promise<number> {
  const [action, id, ...rest] = positionals;
  if (!ACTIONS.includes(action as Action)) {
    throw new UsageError(`incidents needs an action, list, show ID or resolve ID, got "${action}"`);
  }
  if (action === 'list' ? id !== undefined : id === undefined || rest.length > 0) {
    throw new UsageError(
      action === 'list'
        ? `incidents list takes no argument besides its options, got "${id}"`
        : `incidents ${action} takes one incident id: sentinel incidents list shows them`,
    );
  }
  if (options.reason !== undefined && action !== 'resolve')
    throw new UsageError('--reason is for incidents resolve only');
  if (options.scenario !== undefined && action !== 'show')
    throw new UsageError('--scenario is for incidents show only');
  if (options.json && action === 'resolve') throw new UsageError('--json is for incidents list and show');
  const sources = [options.stack, options.table, options.scenario].filter((s) => s !== undefined).length;
  if (sources !== 1) {
    const choices =
      action === 'show' ? '--stack NAME, --table NAME or --scenario FILE' : '--stack NAME or --table NAME';
    throw new UsageError(`give one of ${choices}, not ${sources > 1 ? 'several' : 'none'}`);
  }
  if (action === 'resolve' && options.reason === undefined)
    throw new UsageError('incidents resolve needs --reason TEXT');
  const loaded = options.config === undefined ? undefined : readConfigFile(options.config);

  if (options.scenario !== undefined) return showReplayed(options.scenario, id ?? '', loaded, options.json, out);
  const outputs = options.stack === undefined ? undefined : await stackOutputs(options.stack);
  const table = options.table ?? outputs?.TableName ?? '';
  const client = documentClient();
  const stores = dynamoDbStores({ client, table, now: () => now });
  const resolutions = new DynamoDbHandResolutionStore(new DynamoDbTable({ client, table, now: () => now }));
  switch (action as Action) {
    case 'list': {
      const open = await stores.incidents.openIncidents();
      const fleet = fleetIncidents(open, await notificationsSince(stores, open, now));
      const summaries = fleet.map((f) => summarize(f, now));
      if (options.json) out.stdout(JSON.stringify(summaries, null, 2));
      else for (const line of renderIncidentList(summaries)) out.stdout(line);
      return 0;
    }
    case 'show': {
      const incident = await findStored(stores, id ?? '', now, true);
      const resolution = (await resolutions.all()).find((r) => r.group === incident.id);
      return printExplanation(incident, loaded, resolution, options.json, out);
    }
    case 'resolve': {
      const incident = await findStored(stores, id ?? '', now, false);
      const resolution = await resolutions.record(
        handResolution(incident, isoSeconds(now), await callerArn(), options.reason ?? ''),
      );
      return resolveByHand(incident, resolution, { stores, outputs, loaded }, out);
    }
  }
}

/** The fleet incident an id names, with its notifications; from the open ones only, unless `resolvedToo`. */
async function findStored(stores: PipelineStores, id: string, now: number, resolvedToo: boolean) {
  const incidents = resolvedToo
    ? await stores.incidents.overlapping(now - RETENTION_MS, now + 1)
    : await stores.incidents.openIncidents();
  const found = findFleetIncident(fleetIncidents(incidents, []), id);
  if (!found) {
    throw new HandResolveError(
      `no ${resolvedToo ? '' : 'open '}incident ${id}: sentinel incidents list shows the open ones`,
    );
  }
  const [incident] = fleetIncidents(found.members, await notificationsSince(stores, found.members, now));
  return incident ?? found;
}

/** The notifications raised since the oldest of these incidents opened. */
function notificationsSince(
  stores: PipelineStores,
  incidents: readonly Incident[],
  now: number,
): Promise<NotificationRecord[]> {
  if (incidents.length === 0) return Promise.resolve([]);
  const from = Math.min(...incidents.map((i) => Date.parse(i.openedAt)));
  return stores.outbox.raisedBetween(from, now + 1);
}

async function showReplayed(
  file: string,
  id: string,
  loaded: LoadedConfig | undefined,
  json: boolean,
  out: CommandOutput,
): Promise<number> {
  const scenario = readScenarioFile(file);
  progress(out, `Replaying ${file} (${scenario.steps} steps)...`);
  const result = await replayScenario(scenario, {
    ruleSet: loaded?.ruleSet ?? compileRuleSet([], 'rules'),
    ...(loaded && { config: loaded.config }),
  });
  const fleet = fleetIncidents(result.incidents, result.activity.notifications);
  const incident = findFleetIncident(fleet, id);
  if (!incident) {
    const ids = fleet.map((f) => f.id);
    throw new HandResolveError(
      `${file} replays to no incident ${id}; ${ids.length === 0 ? 'it raises none' : `its incidents: ${ids.join(', ')}`}`,
    );
  }
  return printExplanation(incident, loaded, undefined, json, out);
}

function printExplanation(
  incident: FleetIncident,
  loaded: LoadedConfig | undefined,
  resolution: HandResolution | undefined,
  json: boolean,
  out: CommandOutput,
): number {
  const explanation = explainIncident({
    incident,
    ruleSet: loaded?.ruleSet ?? compileRuleSet([], 'rules'),
    ...(resolution && { resolution }),
    routeOf: routes(loaded),
  });
  if (json) out.stdout(JSON.stringify(explanation, null, 2));
  else for (const line of renderExplanation(explanation)) out.stdout(line);
  return 0;
}

/** Where a notification goes: the topic its severity picks, and with a configuration, the integrations it reaches. */
function routes(loaded: LoadedConfig | undefined): (notification: Notification) => NotificationRoute {
  const integrations = loaded ? pagingIntegrations(loaded.config) : undefined;
  return (notification) => {
    const topic = topicOf(notification);
    if (!integrations) return { topic };
    return { topic, integrations: integrationsFor(notification, integrations).map((i) => i.id) };
  };
}

interface ResolveContext {
  readonly stores: PipelineStores;
  readonly outputs: StackOutputs | undefined;
  readonly loaded: LoadedConfig | undefined;
}

/**
 * Enqueue the resolve and, knowing the stack's topics, deliver it as the poller does: claimed, published, marked.
 * A publish that fails stays in the outbox, and the next poll retries it.
 */
async function resolveByHand(
  incident: FleetIncident,
  resolution: HandResolution,
  { stores, outputs, loaded }: ResolveContext,
  out: CommandOutput,
): Promise<number> {
  const by = `by ${resolution.author} at ${resolution.at}: ${JSON.stringify(resolution.reason)}`;
  const notification = handResolveNotification(
    incident,
    resolution,
    loaded?.ruleSet ?? compileRuleSet([], 'rules'),
    loaded?.config.notifications.runbookBaseUrl ?? '',
  );
  out.stdout(`Incident ${incident.id} resolved by hand ${by}.`);
  if (!notification) {
    out.stdout('On-call was never shown it, so no resolve is sent; it will not page while its rules still fire.');
    return 0;
  }
  await stores.outbox.enqueue([notification]);
  if (!outputs) {
    out.stdout(`Its resolve ${notification.id} is in the outbox: the next poll sends it.`);
    return 0;
  }
  const sns = new SNSClient({});
  try {
    const { delivered, failed } = await deliverPending(
      {
        outbox: stores.outbox,
        notifier: new SnsNotifier(sns, { paging: outputs.PagingTopicArn, notice: outputs.NoticeTopicArn }),
        owner: `sentinel incidents resolve ${resolution.author}`,
        now: Date.now,
        leaseMs: DELIVERY_LEASE_MS,
      },
      [notification],
    );
    const problem = failed.find((f) => f.id === notification.id);
    if (problem) {
      out.stderr(`sentinel: the resolve could not be published (${problem.error}); the next poll retries it.`);
      return 1;
    }
    const sent = delivered.some((n) => n.id === notification.id);
    out.stdout(
      sent
        ? `Its resolve went to the ${notification.severity === 'critical' ? 'paging' : 'notice'} topic, for ${notification.clusters.join(', ')}.`
        : 'Its resolve was sent already.',
    );
    return 0;
  } finally {
    sns.destroy();
  }
}
