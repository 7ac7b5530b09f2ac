import { readFileSync } from 'node:fs';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import { InputError, type InputProblem } from '../../shared/errors.ts';
import { repoPath } from './engine-fixtures.ts';

/** Where the configurations of these tests say they come from. */
export const CONFIG_FILE = 'config/sentinel.json';
export const EXAMPLE_TEXT = readFileSync(repoPath('config/sentinel.example.json'), 'utf8');

export type Change = readonly [path: readonly PropertyKey[], value: unknown];

/** The shipped example with each value set at its path: the one mistake a test makes in an otherwise valid file. */
export function exampleWith(...changes: Change[]): unknown {
  const config: unknown = JSON.parse(EXAMPLE_TEXT);
  for (const [path, value] of changes) {
    const parent = path.slice(0, -1).reduce((node, key) => (node as Record<PropertyKey, unknown>)[key], config);
    (parent as Record<PropertyKey, unknown>)[path.at(-1) as PropertyKey] = value;
  }
  return config;
}

export function problemsOf(value: unknown): readonly InputProblem[] {
  try {
    loadConfig(value, CONFIG_FILE);
  } catch (error) {
    if (error instanceof InputError && error.file === CONFIG_FILE) return error.problems;
    throw error;
  }
  throw new Error('the configuration loaded without an error');
}

export const customRule = (fields: Record<string, unknown> = {}) => ({
  id: 'etcd-slow',
  title: 'etcd is slow',
  summary: 'Write latency is high.',
  severity: 'ticket',
  when: { kind: 'threshold', of: 'apiserver.write.p99', op: '>=', value: 2 },
  hints: [{ text: 'Check etcd.', source: 'team runbook' }],
  runbook: 'docs/runbooks/etcd-slow.md',
  ...fields,
});
