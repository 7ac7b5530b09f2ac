import { readConfigFile } from '../io/input-files.ts';
import { recordedScenario, scenarioFileOf } from '../shared/scenario/recorded-scenario.ts';
import { replayScenario } from '../shared/scenario/replay.ts';
import { renderTimeline } from '../shared/scenario/timeline.ts';
import { fetchHistory } from './cloudwatch-history.ts';
import { type CommandOutput, UsageError } from './command.ts';
import { alignToStep, parseTimeArgument } from './time-argument.ts';

export const BACKTEST_USAGE = 'sentinel backtest --config FILE --from T --to T [--cluster NAME]';
export const EXPORT_USAGE = 'sentinel export-scenario --config FILE --cluster NAME --from T --to T > incident.json';

interface HistoryOptions {
  readonly config?: string;
  readonly cluster?: string;
  readonly from?: string;
  readonly to?: string;
}

async function history(options: HistoryOptions, usage: string, out: CommandOutput, now: number) {
  if (!options.config) throw new UsageError(`--config is required\nusage: ${usage}`);
  const loaded = readConfigFile(options.config);
  const clusters = options.cluster
    ? loaded.config.clusters.filter((c) => c.name === options.cluster)
    : loaded.config.clusters;
  if (clusters.length === 0) {
    throw new UsageError(
      `cluster "${options.cluster}" is not in ${options.config}; it has: ${loaded.config.clusters.map((c) => c.name).join(', ')}`,
    );
  }
  const from = alignToStep(parseTimeArgument('from', options.from, now), 60);
  const to = alignToStep(parseTimeArgument('to', options.to, now), 60);
  const series = await fetchHistory(clusters, from, to, now, out);
  return { loaded, series, from, to };
}

/** Replay real CloudWatch history through the engine: the pages the rules would have sent. */
export async function backtestCommand(options: HistoryOptions, out: CommandOutput, now = Date.now()): Promise<number> {
  const { loaded, series, from, to } = await history(options, BACKTEST_USAGE, out, now);
  const scenario = recordedScenario({
    name: `backtest ${new Date(from).toISOString()} to ${new Date(to).toISOString()}`,
    description: `CloudWatch history of ${[...series.keys()].join(', ')}`,
    start: from,
    stepSeconds: 60,
    clusters: series,
  });
  const result = await replayScenario(scenario, { ruleSet: loaded.ruleSet, config: loaded.config });
  out.stdout(renderTimeline(result));
  return 0;
}

/** Turn a real incident into a scenario file for review and the regression corpus. */
export async function exportScenarioCommand(
  options: HistoryOptions,
  out: CommandOutput,
  now = Date.now(),
): Promise<number> {
  if (!options.cluster) throw new UsageError(`--cluster is required\nusage: ${EXPORT_USAGE}`);
  const { series, from, to } = await history(options, EXPORT_USAGE, out, now);
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
