import { readConfigFile, readScenarioFile } from '../io/input-files.ts';
import { compileRuleSet } from '../shared/config/deployment-config.ts';
import { replayScenario } from '../shared/scenario/replay.ts';
import { renderTimeline, replayJsonLines } from '../shared/scenario/timeline.ts';
import { type CommandOutput, UsageError } from './command.ts';

export const REPLAY_USAGE = 'sentinel replay FILE... [--json] [--check] [--config CONFIG]';

/** Replays scenario files; with --check, fails when any expectation fails. */
export async function replayCommand(
  files: readonly string[],
  options: { json: boolean; check: boolean; config?: string },
  out: CommandOutput,
): Promise<number> {
  if (files.length === 0) throw new UsageError(`replay needs at least one scenario file\nusage: ${REPLAY_USAGE}`);
  const loaded = options.config ? readConfigFile(options.config) : undefined;
  const ruleSet = loaded?.ruleSet ?? compileRuleSet([], 'rules');
  let failures = 0;
  for (const file of files) {
    const scenario = readScenarioFile(file);
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
