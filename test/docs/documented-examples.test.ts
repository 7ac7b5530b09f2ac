import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { main } from '../../cli/main.ts';
import { configJsonSchema } from '../../shared/config/config-json-schema.ts';
import { compileRuleSet, parseConfigText } from '../../shared/config/deployment-config.ts';
import { ruleSchema } from '../../shared/engine/rule.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { CapturedCommandOutput } from '../support/command-output.ts';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('documented examples', () => {
  it('ships a JSON Schema that matches the configuration schema', () => {
    expect(JSON.parse(read('config/sentinel.schema.json'))).toEqual(configJsonSchema());
  });

  it('ships an example configuration that validates', () => {
    const { config } = parseConfigText(read('config/sentinel.example.json'), 'config/sentinel.example.json');
    expect(config.clusters.map((c) => c.name)).toEqual(['prod-euw1', 'dev-euw1']);
  });

  it('documents a custom rule that validates and compiles with the defaults', () => {
    const block = /## Writing a rule[\s\S]*?```json\n([\s\S]*?)```/.exec(read('docs/rules.md'))?.[1];
    const rule = ruleSchema.parse(JSON.parse(block ?? 'null'));
    expect(compileRuleSet([rule], 'docs/rules.md').get('etcd-db-near-quota')?.severity).toBe('ticket');
  });

  it('shows in the README the timeline `npm start` prints, eliding only where it says `...`', async () => {
    const readme = read('README.md');
    const block = /`npm start` prints[^\n]*\n\n```text\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const start = JSON.parse(read('package.json')).scripts.start as string;
    const output = new CapturedCommandOutput();
    await main(start.replace(/^node bin\/sentinel\.js /, '').split(' '), output);

    expect(block).not.toBe('');
    expect(unelided(block, output.stdoutText.split('\n'))).toEqual([]);
  });

  it('closes every inline code span of the README', () => {
    const prose = read('README.md')
      .replace(/```[\s\S]*?```/g, '')
      .split(/\n\s*\n/);

    expect(prose.filter((paragraph) => (paragraph.match(/`/g) ?? []).length % 2 !== 0)).toEqual([]);
  });

  it('documents a scenario that parses and whose expectations pass', async () => {
    const block = /## The file[\s\S]*?```json\n([\s\S]*?)```/.exec(read('docs/scenarios.md'))?.[1];
    const scenario = parseScenario(JSON.parse(block ?? 'null'), 'docs/scenarios.md');
    const result = await replayScenario(scenario, { ruleSet: compileRuleSet([], 'rules') });

    expect(result.checks.map((c) => c.passed)).toEqual([true, true]);
  });
});

/**
 * The lines of a documented output that the real output does not have where the document puts them: the document's
 * lines must appear in order and, between its `...` lines, one after the other.
 */
function unelided(documented: string, actual: readonly string[]): string[] {
  const runs = documented
    .trimEnd()
    .split(/^\s*\.\.\.\s*$/m)
    .map((run) => run.replace(/^\n+|\n+$/g, '').split('\n'))
    .filter((run) => run.join('') !== '');
  const missing: string[] = [];
  let from = 0;
  runs.forEach((run, index) => {
    const at = actual.findIndex((_, i) => i >= from && run.every((line, offset) => actual[i + offset] === line));
    // The first run starts where the output starts, unless the document elides the start.
    if (at < 0 || (index === 0 && at !== 0 && !/^\s*\.\.\./.test(documented))) missing.push(...run);
    else from = at + run.length;
  });
  return missing;
}
