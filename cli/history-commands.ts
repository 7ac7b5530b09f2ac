import { documentClient } from '../aws/clients.ts';
import { DynamoDbNodeChurnReader } from '../aws/dynamodb/node-churn-reader.ts';
import { DynamoDbTable } from '../aws/dynamodb/table.ts';
import { readConfigFile } from '../io/input-files.ts';
import { ambiguousClusterMessage, displayNameOf, lookUpCluster } from '../shared/config/cluster-identity.ts';
import { recordedScenario, scenarioFileOf } from '../shared/scenario/recorded-scenario.ts';
import { replayScenario } from '../shared/scenario/replay.ts';
import { renderTimeline, replayJsonLines } from '../shared/scenario/timeline.ts';
import { fetchHistory } from './cloudwatch-history.ts';
import { type CommandOutput, progress, UsageError } from './command.ts';
import { defineCommand, type OptionSpecs } from './command-line.ts';
import { stackOutputs } from './stack-outputs.ts';
import { alignToStep, parseTimeArgument, TIME_FORMATS } from './time-argument.ts';

/** The stretch of history both commands read. */
const TIME_RANGE = {
  from: { type: 'string', value: 'T', description: 'start of the history, within the last 15 days' },
  to: { type: 'string', value: 'T', description: 'end of the history, later than --from' },
  stack: { type: 'string', value: 'NAME', description: 'the deployed OpsStack whose table holds the node churn' },
  table: { type: 'string', value: 'NAME', description: 'the table itself, instead of --stack' },
} as const satisfies OptionSpecs;

const HISTORY_NOTES = [
  TIME_FORMATS,
  'Node churn comes from the deployed table (--stack or --table), as the poller reads it; without either it is left out.',
  'CloudWatch keeps one-minute data for 15 days. Uses the default AWS credential chain (AWS_PROFILE, AWS_REGION, ...).',
];

export const BACKTEST_COMMAND = defineCommand({
  name: 'backtest',
  summary: 'replay real CloudWatch history through the rules and print the notifications they would have sent',
  usage: ['sentinel backtest --config FILE --from T --to T [--cluster NAME] [--stack NAME | --table NAME] [--json]'],
  options: {
    config: { type: 'string', value: 'FILE', description: 'the deployment configuration: clusters, rules, overrides' },
    cluster: { type: 'string', value: 'NAME', description: 'only this cluster of the configuration (default: all)' },
    ...TIME_RANGE,
    json: {
      type: 'boolean',
      description: 'print one JSON object per notification, as sentinel replay --json does, instead of the timeline',
    },
  },
  notes: HISTORY_NOTES,
  run: (values, _, out) => backtestCommand(values, out),
});

export const EXPORT_SCENARIO_COMMAND = defineCommand({
  name: 'export-scenario',
  summary: "write a cluster's CloudWatch history as a scenario file, to review or add to the corpus",
  usage: [
    'sentinel export-scenario --config FILE --cluster NAME --from T --to T [--stack NAME | --table NAME] > incident.json',
  ],
  options: {
    config: { type: 'string', value: 'FILE', description: 'the deployment configuration that names the cluster' },
    cluster: { type: 'string', value: 'NAME', description: 'the cluster to export (required)' },
    ...TIME_RANGE,
  },
  notes: [...HISTORY_NOTES, 'Its output is JSON already: the scenario file (format sentinel.scenario/v1).'],
  run: (values, _, out) => exportScenarioCommand(values, out),
});

interface HistoryOptions {
  readonly config?: string;
  readonly cluster?: string;
  readonly from?: string;
  readonly to?: string;
  readonly json?: boolean;
  readonly stack?: string;
  readonly table?: string;
}

async function history(options: HistoryOptions, out: CommandOutput, now: number) {
  if (!options.config) throw new UsageError('--config is required');
  const loaded = readConfigFile(options.config);
  const all = loaded.config.clusters;
  const chosen = options.cluster === undefined ? undefined : lookUpCluster(options.cluster, all);
  if (chosen && !('found' in chosen)) {
    throw new UsageError(
      'ambiguous' in chosen
        ? ambiguousClusterMessage(options.cluster ?? '', chosen.ambiguous)
        : `cluster "${options.cluster}" is not in ${options.config}; it has: ${all.map(displayNameOf).join(', ')}`,
    );
  }
  const clusters = chosen ? all.filter((c) => displayNameOf(c) === chosen.found) : all;
  if (options.stack && options.table) throw new UsageError('give --stack NAME or --table NAME, not both');
  const from = alignToStep(parseTimeArgument('from', options.from, now), 60);
  const to = alignToStep(parseTimeArgument('to', options.to, now), 60);
  const table = options.table ?? (options.stack ? (await stackOutputs(options.stack)).TableName : undefined);
  const churn =
    table === undefined
      ? undefined
      : new DynamoDbNodeChurnReader(new DynamoDbTable({ client: documentClient(), table, now: () => now }));
  const series = await fetchHistory(clusters, from, to, now, out, churn);
  return { loaded, series, from, to };
}

/** Replay real CloudWatch history through the engine: the pages the rules would have sent. */
export async function backtestCommand(options: HistoryOptions, out: CommandOutput, now = Date.now()): Promise<number> {
  const { loaded, series, from, to } = await history(options, out, now);
  const scenario = recordedScenario({
    name: `backtest ${new Date(from).toISOString()} to ${new Date(to).toISOString()}`,
    description: `CloudWatch history of ${[...series.keys()].join(', ')}`,
    start: from,
    stepSeconds: 60,
    clusters: series,
  });
  progress(out, `Replaying ${scenario.steps} minutes through the rules...`);
  const result = await replayScenario(scenario, { ruleSet: loaded.ruleSet, config: loaded.config });
  if (options.json) for (const line of replayJsonLines(result)) out.stdout(line);
  else out.stdout(renderTimeline(result));
  return 0;
}

/** Turn a real incident into a scenario file for review and the regression corpus. */
export async function exportScenarioCommand(
  options: HistoryOptions,
  out: CommandOutput,
  now = Date.now(),
): Promise<number> {
  if (!options.cluster) throw new UsageError('--cluster is required');
  const { series, from, to } = await history(options, out, now);
  const file = scenarioFileOf({
    name: `${options.cluster}-${new Date(from).toISOString().slice(0, 16).replace(/[-:]/g, '')}`,
    description: `Exported from CloudWatch: ${options.cluster}, ${new Date(from).toISOString()} to ${new Date(to).toISOString()}. Add "expect" entries and an onset before adding it to the corpus.`,
    start: from,
    stepSeconds: 60,
    clusters: series,
  });
  out.stdout(JSON.stringify(file, null, 2));
  return 0;
}
