import { readFileSync } from 'node:fs';
import { InputError } from '../../shared/errors.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { defaultRuleSet } from '../support/engine-fixtures.ts';

/** A shipped scenario with `fields` in place of its own: its maintenance windows dropped, silences added. */
function withSilences(name: string, silences: readonly object[]) {
  const file = `scenarios/${name}.json`;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  return parseScenario({ ...raw, maintenance: [], silences, expect: [] }, file);
}

const replay = async (name: string, silences: readonly object[]) =>
  (await replayScenario(withSilences(name, silences), { ruleSet: defaultRuleSet() })).notifications.map(
    (n) => `${n.kind} ${n.rule}`,
  );

describe('silences in a replayed scenario', () => {
  it('hold back a ticket on the cluster they cover, and only there', async () => {
    const silence = { cluster: 'prod-euw5', from: '+0m', to: '+200m', reason: 'webhook migration', author: 'alice' };

    expect([
      await replay('webhook-fail-open-no-endpoints', []),
      await replay('webhook-fail-open-no-endpoints', [silence]),
      await replay('webhook-fail-open-no-endpoints', [{ ...silence, cluster: 'prod-euw6' }]),
    ]).toEqual([
      ['ticket webhook-failing-open', 'resolve webhook-failing-open'],
      [],
      ['ticket webhook-failing-open', 'resolve webhook-failing-open'],
    ]);
  });

  it('hold back only the root rule they name', async () => {
    const other = { cluster: 'prod-euw5', rule: 'node-churn', from: '+0m', to: '+200m', reason: 'node rotation' };

    expect(await replay('webhook-fail-open-no-endpoints', [other])).toEqual([
      'ticket webhook-failing-open',
      'resolve webhook-failing-open',
    ]);
  });

  it('never hold back a severe outage: the OPA outage pages through a silence, naming it', async () => {
    const silence = { cluster: 'dev-euw1', from: '+0m', to: '+330m', reason: 'master upgrade', author: 'alice' };
    const scenario = withSilences('outage-inside-maintenance-window', [silence]);
    const { notifications } = await replayScenario(scenario, { ruleSet: defaultRuleSet() });
    const page = notifications.find((n) => n.kind === 'page');

    expect([page?.rule, page?.reason, page?.changes[0]]).toEqual([
      'control-plane-degraded',
      'maintenance-override',
      expect.stringMatching(
        /^dev-euw1: paging despite silence #1 "master upgrade" \(alice, until 14:00Z\): .* is severe/,
      ),
    ]);
  });

  it('name an unknown cluster or rule, and a silence outside the scenario, by their path', async () => {
    const parse = () =>
      withSilences('webhook-fail-open-no-endpoints', [
        { cluster: 'prod-euw9', from: '+0m', to: '+1h', reason: 'x' },
        { cluster: 'prod-euw5', from: '+1d', to: '+2d', reason: 'x' },
      ]);
    const unknownRule = withSilences('webhook-fail-open-no-endpoints', [
      { cluster: 'prod-euw5', rule: 'webhook-slow', from: '+0m', to: '+1h', reason: 'x' },
    ]);

    expect(parse).toThrow(
      /\$\.silences\[0\]\.cluster: unknown cluster "prod-euw9"[\s\S]*\$\.silences\[1\]: lies outside/,
    );
    await expect(replayScenario(unknownRule, { ruleSet: defaultRuleSet() })).rejects.toThrow(InputError);
    await expect(replayScenario(unknownRule, { ruleSet: defaultRuleSet() })).rejects.toThrow(
      '$.silences[0].rule: unknown rule "webhook-slow"',
    );
  });
});
