import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { configJsonSchema } from '../../shared/config/config-json-schema.ts';
import { compileRuleSet, parseConfigText } from '../../shared/config/deployment-config.ts';
import { ruleSchema } from '../../shared/engine/rule.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';

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

  it('documents a scenario that parses and whose expectations pass', async () => {
    const block = /## The file[\s\S]*?```json\n([\s\S]*?)```/.exec(read('docs/scenarios.md'))?.[1];
    const scenario = parseScenario(JSON.parse(block ?? 'null'), 'docs/scenarios.md');
    const result = await replayScenario(scenario, { ruleSet: compileRuleSet([], 'rules') });

    expect(result.checks.map((c) => c.passed)).toEqual([true, true]);
  });
});
