import { readdirSync } from 'node:fs';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import { InputError } from '../../shared/errors.ts';
import { replayScenario, ScenarioTripwires } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import {
  defaultRuleSet,
  ERRORS_ONLY_SIGNALS,
  replayShipped,
  replaySignals,
  repoPath,
  scenarioJson,
} from '../support/engine-fixtures.ts';

const SHIPPED = readdirSync(repoPath('scenarios'))
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.replace(/\.json$/, ''))
  .sort();

/** A webhook that hangs while writes stall, on a cluster that reports only those two signals. */
const blackholeScenario = (fields: Record<string, unknown> = {}) =>
  parseScenario(
    scenarioJson({
      clusters: {
        'dev-euw1': { signals: { 'webhook.p99': '0.1*5 10*10', 'apiserver.write.p99': '0.2*5 5*10' } },
      },
      ...fields,
    }),
    'scenarios/blackhole.json',
  );

describe('replayScenario', () => {
  it('finds the shipped scenarios', () => {
    expect(SHIPPED).toEqual(expect.arrayContaining(['opa-webhook-outage', 'healthy-noisy-week']));
  });

  it.each(SHIPPED)('passes every expectation of %s', async (name) => {
    const result = await replayShipped(name);
    const failed = result.checks.filter((c) => !c.passed).map((c) => `${c.expectation.path}: ${c.detail}`);

    expect([result.checks.length > 0, failed]).toEqual([true, []]);
  });

  it('sends no page over the healthy noisy week', async () => {
    const result = await replayShipped('healthy-noisy-week');

    expect(result.notifications.filter((n) => n.kind === 'page')).toEqual([]);
  });

  it('reports the webhook rules as skipped, with the signals they lack, on a cluster without webhooks', async () => {
    const result = await replayShipped('control-plane-overload');

    expect(result.skipped).toEqual([
      {
        cluster: 'prod-euw2',
        rule: 'webhook-blackhole',
        lacking: ['webhook.p99', 'webhook.failures', 'webhook.requests', 'webhook.rejections'],
      },
      { cluster: 'prod-euw2', rule: 'webhook-latency-tax', lacking: ['webhook.p99'] },
      { cluster: 'prod-euw2', rule: 'webhook-availability-gaps', lacking: ['webhook.failures', 'webhook.requests'] },
      {
        cluster: 'prod-euw2',
        rule: 'webhook-failing-open',
        lacking: ['webhook.failures', 'webhook.requests', 'webhook.p99'],
      },
    ]);
  });

  it('reports every rule on every cluster as full, partial with what it lacks, or skipped', async () => {
    const { coverage } = await replaySignals(ERRORS_ONLY_SIGNALS);
    const of = (rule: string) => coverage.find((c) => c.rule === rule);

    expect([of('signals-missing')?.status, of('control-plane-degraded')?.status, of('node-churn')?.status]).toEqual([
      'full',
      'partial',
      'skipped',
    ]);
    expect(of('control-plane-degraded')?.missing).toContain('apiserver.429');
  });

  it('still pages the control plane itself on a cluster without webhooks', async () => {
    const result = await replayShipped('control-plane-overload');

    expect(result.notifications.filter((n) => n.kind === 'page').map((n) => n.rule)).toEqual([
      'control-plane-degraded',
    ]);
  });

  it('rejects an expectation that names an unknown rule, at its path', async () => {
    const scenario = blackholeScenario({
      expect: [
        { cluster: 'dev-euw1', kind: 'page', count: 1 },
        { cluster: 'dev-euw1', rule: 'webhook-blackholes', kind: 'page' },
      ],
    });

    await expect(replayScenario(scenario, { ruleSet: defaultRuleSet() })).rejects.toEqual(
      new InputError('scenarios/blackhole.json', [
        { path: '$.expect[1].rule', message: 'unknown rule "webhook-blackholes"' },
      ]),
    );
  });

  it('rejects an unknown rule as an InputError that names the scenario file', async () => {
    const scenario = blackholeScenario({ expect: [{ cluster: 'dev-euw1', rule: 'ghost' }] });

    await expect(replayScenario(scenario, { ruleSet: defaultRuleSet() })).rejects.toBeInstanceOf(InputError);
  });

  it('pages for a webhook black hole on a cluster that reports only webhook and write latency', async () => {
    const result = await replayScenario(blackholeScenario(), { ruleSet: defaultRuleSet() });

    expect(result.notifications.map((n) => `${n.kind} ${n.rule}`)).toEqual(['page webhook-blackhole']);
  });

  it('applies the overrides a configuration sets for the cluster', async () => {
    const { config, ruleSet } = loadConfig(
      { clusters: [{ name: 'dev-euw1', overrides: { 'webhook-blackhole': { enabled: false } } }] },
      'sentinel.json',
    );

    const result = await replayScenario(blackholeScenario(), { ruleSet, config });

    expect(result.notifications.filter((n) => n.rule === 'webhook-blackhole')).toEqual([]);
  });

  it('checks the expectations of the scenario against what it sent', async () => {
    const scenario = blackholeScenario({ expect: [{ cluster: 'dev-euw1', kind: 'page', count: 2 }] });

    const result = await replayScenario(scenario, { ruleSet: defaultRuleSet() });

    expect(result.checks.map((c) => [c.passed, c.detail])).toEqual([[false, 'expected 2, got 1']]);
  });
});

describe('ScenarioTripwires armed by node churn', () => {
  const scenario = parseScenario(
    {
      format: 'sentinel.scenario/v1',
      name: 'three-repairs',
      start: '2026-03-10T06:00:00Z',
      clusters: { 'ml-euc1': { signals: { 'nodes.replaced': '0*5 1*3 0*12', 'nodes.total': '12*20' } } },
    },
    'three-repairs.json',
  );
  const at = (step: number) => scenario.start + step * 60_000;

  it('arms the read of the step of the third possible repair: its event is counted before that step is polled', async () => {
    const tripwires = new ScenarioTripwires(scenario, undefined);

    const byNodeChurn = async (step: number) => [...(await tripwires.armed(at(step))).byNodeChurn];

    expect([await byNodeChurn(6), await byNodeChurn(7)]).toEqual([[], ['ml-euc1']]);
  });
});
