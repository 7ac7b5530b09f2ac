import { readConfigFile, readScenarioFile } from '../io/input-files.ts';
import { compileRuleSet, type LoadedConfig } from '../shared/config/deployment-config.ts';
import { matchConfigClusters } from '../shared/scenario/config-clusters.ts';
import { replayScenario } from '../shared/scenario/replay.ts';
import type { Scenario } from '../shared/scenario/scenario.ts';
import { renderTimeline, replayJsonLines } from '../shared/scenario/timeline.ts';
import type { CommandOutput } from './command.ts';
import { defineCommand } from './command-line.ts';

export interface ReplayOptions {
  readonly json: boolean;
  readonly check: boolean;
  readonly config?: string;
}

export const REPLAY_COMMAND = defineCommand({
  name: 'replay',
  summary: 'feed scenario files through the detection pipeline and print what it would have sent',
  usage: ['sentinel replay FILE... [--json] [--check] [--config CONFIG]'],
  positionals: {
    name: 'FILE...',
    noun: 'scenario file',
    description: 'scenario files (format sentinel.scenario/v1), e.g. scenarios/*.json',
    many: true,
  },
  options: {
    json: { type: 'boolean', description: 'print one JSON object per notification instead of the timeline' },
    check: { type: 'boolean', description: 'exit 1 when an expectation of a scenario fails' },
    config: {
      type: 'string',
      value: 'CONFIG',
      description: "replay with a deployment configuration's overrides, custom rules and settings",
    },
  },
  run: (values, files, out) => replayCommand(files, values, out),
});

/** Replays scenario files; with --check, fails when any expectation fails. */
export async function replayCommand(
  files: readonly string[],
  options: ReplayOptions,
  out: CommandOutput,
): Promise<number> {
  const loaded = options.config !== undefined ? readConfigFile(options.config) : undefined;
  const ruleSet = loaded?.ruleSet ?? compileRuleSet([], 'rules');
  let failures = 0;
  for (const file of files) {
    const scenario = readScenarioFile(file);
    if (loaded && options.config !== undefined) sayWhichClustersMatch(loaded, options.config, scenario, out);
    const result = await replayScenario(scenario, { ruleSet, ...(loaded && { config: loaded.config }) });
    const failed = result.checks.filter((c) => !c.passed);
    failures += failed.length;
    if (options.json) {
      for (const line of replayJsonLines(result)) out.stdout(line);
      for (const check of failed) out.stderr(`${file}: expectation ${check.expectation.path} failed: ${check.detail}`);
    } else {
      out.stdout(renderTimeline(result));
      if (files.length > 1) out.stdout('');
    }
  }
  if (options.check && files.length > 1 && !options.json) {
    out.stdout(
      failures === 0 ? `All expectations of ${files.length} scenarios passed.` : `${failures} expectation(s) failed.`,
    );
  }
  return options.check && failures > 0 ? 1 : 0;
}

/** Cluster overrides apply by name: say which took effect, so a misspelt cluster does not pass unnoticed. */
function sayWhichClustersMatch(loaded: LoadedConfig, configFile: string, scenario: Scenario, out: CommandOutput) {
  const { matched, unconfigured, idleOverrides } = matchConfigClusters(loaded.config, scenario);
  const unmatched =
    unconfigured.length > 0 ? `; not in the configuration (fleet-wide rules only): ${unconfigured.join(', ')}` : '';
  out.stderr(
    `sentinel: ${scenario.file}: clusters of ${configFile} in this scenario: ${matched.join(', ') || 'none'}${unmatched}`,
  );
  for (const problem of idleOverrides)
    out.stderr(`sentinel: warning: ${configFile} ${problem.path}: ${problem.message}`);
}
