import { readFileSync } from 'node:fs';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import { InputError, type InputProblem } from '../../shared/errors.ts';
import { repoPath } from './engine-fixtures.ts';

/** Where the configurations of these tests say they come from. */
export const CONFIG_FILE = 'config/sentinel.json';
export const EXAMPLE_TEXT = readFileSync(repoPath('config/sentinel.example.json'), 'utf8');

export type Change = readonly [path: readonly PropertyKey[], value: unknown];

/** A cluster that says how its nodes run, as a configuration without a kind warning does. */
export const KINDED = { nodes: 'managed-node-groups' };
/** On-call, paged by text message. */
export const ONCALL = { protocol: 'sms', endpoint: '+4915112345678' };
/** The team's mailbox, which hears of tickets. */
export const TEAM = { protocol: 'email', endpoint: 'team@example.com' };

/**
 * A configuration that deploys without a warning, with the given sections replaced: two clusters that say how their
 * nodes run, on-call paged, the team told of tickets, the digest sent to the lead.
 */
export function warningFreeConfig(fields: Record<string, unknown> = {}) {
  return {
    clusters: [
      { name: 'a', source: KINDED },
      { name: 'b', source: KINDED },
    ],
    subscriptions: { paging: [{ subscribers: [ONCALL] }], notice: [{ subscribers: [TEAM] }] },
    digest: { recipients: ['lead@example.com'] },
    ...fields,
  };
}

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
