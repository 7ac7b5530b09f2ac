import { BRIDGED_GAP_SAMPLES } from '../../shared/engine/evaluate-condition.ts';
import type { Rule } from '../../shared/engine/rule.ts';
import { type RuleOrigin, RuleSet } from '../../shared/engine/rule-set.ts';
import { DEFAULT_RULES } from '../../shared/engine/rules/index.ts';
import { InputError } from '../../shared/errors.ts';
import { defaultRuleSet, flagRule, ruleSetOf, testRule } from '../support/engine-fixtures.ts';

function compileError(rules: readonly Rule[], origins: readonly RuleOrigin[] = []): InputError {
  try {
    RuleSet.compile(rules, origins);
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('the rules compiled without an error');
}

const paramRule = (params: Record<string, unknown>) =>
  testRule('slow-writes', { kind: 'threshold', of: 'apiserver.write.p99', op: '>=', value: '$limit' }, { params });

describe('RuleSet', () => {
  describe('the default rules', () => {
    it('compile without a problem', () => {
      expect(RuleSet.compile(DEFAULT_RULES, []).rules).toHaveLength(DEFAULT_RULES.length);
    });

    it('put every rule before the rules it explains', () => {
      const ruleSet = defaultRuleSet();
      const position = new Map(ruleSet.rules.map((rule, index) => [rule.id, index]));
      const misordered = ruleSet.rules.flatMap((rule) =>
        rule.explains
          .filter((id) => (position.get(id) ?? -1) < (position.get(rule.id) ?? -1))
          .map((id) => `${rule.id} after ${id}`),
      );

      expect(misordered).toEqual([]);
    });

    it('let webhook-blackhole explain node-churn through node-repair-storm', () => {
      expect(defaultRuleSet().chain('webhook-blackhole', 'node-churn')).toEqual([
        'webhook-blackhole',
        'node-repair-storm',
        'node-churn',
      ]);
    });

    it('do not let a symptom explain its cause', () => {
      expect(defaultRuleSet().explains('node-repair-storm', 'webhook-blackhole')).toBe(false);
    });
  });

  describe('compile', () => {
    it('rejects a duplicate id at the second rule', () => {
      expect(compileError([flagRule('a', 'webhook.p99'), flagRule('a', 'nodes.total')]).problems).toEqual([
        { path: '$[1].id', message: 'duplicate rule id "a": ids must be unique' },
      ]);
    });

    it('rejects a rule that explains an unknown rule', () => {
      expect(compileError([flagRule('a', 'webhook.p99', { explains: ['ghost'] })]).problems).toEqual([
        { path: '$[0].explains[0]', message: 'unknown rule "ghost"' },
      ]);
    });

    it('rejects a rule that explains itself, once', () => {
      expect(compileError([flagRule('a', 'webhook.p99', { explains: ['a'] })]).problems).toEqual([
        { path: '$[0].explains[0]', message: 'a rule cannot explain itself' },
      ]);
    });

    it('names a cycle of causal links in order', () => {
      const rules = [
        flagRule('a', 'webhook.p99', { explains: ['b'] }),
        flagRule('b', 'nodes.total', { explains: ['a'] }),
      ];

      expect(compileError(rules).problems).toEqual([
        { path: '$[0].explains', message: 'causal links form a cycle: a -> b -> a' },
      ]);
    });

    it('rejects a $param that the rule does not declare', () => {
      expect(compileError([paramRule({})]).problems).toEqual([
        { path: '$[0].when', message: 'uses $limit, which is not declared in "params"' },
      ]);
    });

    it('rejects an undeclared $param in the where of a window', () => {
      const rule = testRule('bursts', {
        kind: 'window',
        of: 'webhook.failures',
        aggregate: 'count',
        window: '1h',
        where: { op: '>', value: '$burst' },
        op: '>=',
        value: 3,
      });

      expect(compileError([rule]).problems).toEqual([
        { path: '$[0].when', message: 'uses $burst, which is not declared in "params"' },
      ]);
    });

    it('rejects an unknown rule in maintenance.notifyWhenFiring', () => {
      const rule = flagRule('a', 'webhook.p99', { maintenance: { notifyWhenFiring: ['ghost'] } });

      expect(compileError([rule]).problems).toEqual([
        { path: '$[0].maintenance.notifyWhenFiring[0]', message: 'unknown rule "ghost"' },
      ]);
    });

    it('points each problem into the file and path its rule came from', () => {
      const error = compileError(
        [flagRule('a', 'webhook.p99'), flagRule('b', 'nodes.total', { explains: ['ghost'] })],
        [
          { file: 'config.json', path: ['rules', 'custom', 0] },
          { file: 'config.json', path: ['rules', 'custom', 1] },
        ],
      );

      expect([error.file, error.problems]).toEqual([
        'config.json',
        [{ path: '$.rules.custom[1].explains[0]', message: 'unknown rule "ghost"' }],
      ]);
    });
  });

  describe('problems in several files', () => {
    it('reports every file, each path prefixed with its file', () => {
      const error = compileError(
        [
          flagRule('a', 'webhook.p99', { explains: ['ghost'] }),
          flagRule('b', 'nodes.total', { explains: ['phantom'] }),
        ],
        [
          { file: 'defaults.ts', path: [0] },
          { file: 'config.json', path: ['rules', 'custom', 0] },
        ],
      );

      expect([error.file, error.problems]).toEqual([
        'defaults.ts and config.json',
        [
          { path: 'defaults.ts $[0].explains[0]', message: 'unknown rule "ghost"' },
          { path: 'config.json $.rules.custom[0].explains[0]', message: 'unknown rule "phantom"' },
        ],
      ]);
    });
  });

  describe('what a poll reads', () => {
    /** Fires on slow webhooks; inside a maintenance window, pages anyway on an hour of NotReady nodes. */
    const rule = flagRule('a', 'webhook.p99', {
      maintenance: { notifyWhen: { kind: 'sustained', of: 'nodes.notready', op: '>=', value: 1, m: 60, n: 60 } },
    });

    it('fetches the signals a maintenance condition reads, as well as those of the rule', () => {
      expect([...ruleSetOf(rule).signals()].sort()).toEqual(['nodes.notready', 'webhook.p99']);
    });

    it('reads as much history as a maintenance condition needs, with the samples that can close a gap at its start', () => {
      expect(ruleSetOf(rule).lookback(60)).toBe(60 + BRIDGED_GAP_SAMPLES);
    });
  });

  describe('checkOverrides', () => {
    it('reports an override of an unknown rule at its path', () => {
      expect(
        defaultRuleSet().checkOverrides({ 'webhook-blackhol': { enabled: false } }, ['rules', 'overrides']),
      ).toEqual([
        {
          path: '$.rules.overrides["webhook-blackhol"]',
          message: 'unknown rule "webhook-blackhol": did you mean "webhook-blackhole"?',
        },
      ]);
    });

    it('reports an unknown parameter at its path, listing the parameters the rule has', () => {
      const problems = defaultRuleSet().checkOverrides({ 'node-churn': { params: { minReplace: 3 } } }, [
        'clusters',
        0,
        'overrides',
      ]);

      expect(problems).toEqual([
        {
          path: '$.clusters[0].overrides["node-churn"].params.minReplace',
          message:
            'rule "node-churn" has no parameter "minReplace"; it has: minReplaced, changeRatio, replacedShare, writeP99Seconds, errorRatio',
        },
      ]);
    });

    it('refuses an override of a parameter an earlier release removed, saying what replaced it', () => {
      const [problem] = defaultRuleSet().checkOverrides({ 'webhook-blackhole': { params: { errorJump: 3 } } }, [
        'rules',
        'overrides',
      ]);

      expect(problem?.path).toBe('$.rules.overrides["webhook-blackhole"].params.errorJump');
      expect(problem?.message).toMatch(
        /^rule "webhook-blackhole" no longer has parameter "errorJump": .*maxErrorsPerRejection/,
      );
    });

    it('refuses an override of a parameter that follows another rule, naming where to set it', () => {
      const [problem] = defaultRuleSet().checkOverrides(
        { 'nodes-unreachable': { params: { stormNotReadyShare: 0.4 } } },
        ['rules', 'overrides'],
      );

      expect(problem).toEqual({
        path: '$.rules.overrides["nodes-unreachable"].params.stormNotReadyShare',
        message:
          'rule "nodes-unreachable" takes "stormNotReadyShare" from rule "node-repair-storm": override "notReadyShare" there (rules.overrides.node-repair-storm.params.notReadyShare), and both rules read it',
      });
    });

    it('accepts overrides of known rules and parameters', () => {
      expect(
        defaultRuleSet().checkOverrides({ 'node-churn': { params: { minReplaced: 8 }, severity: 'page' } }, ['x']),
      ).toEqual([]);
    });
  });

  describe('forCluster', () => {
    const ruleSet = () => ruleSetOf(paramRule({ limit: { default: 1, unit: 'seconds', description: 'limit' } }));
    const clusterRule = (layers: Parameters<RuleSet['forCluster']>[0]) => ruleSet().forCluster(layers)[0];

    it('uses the rule defaults without overrides', () => {
      const rule = clusterRule([]);

      expect([rule?.params, rule?.severity, rule?.holdDownMs]).toEqual([{ limit: 1 }, 'page', 15 * 60_000]);
    });

    it('applies a fleet override', () => {
      expect(clusterRule([{ 'slow-writes': { params: { limit: 2 } } }, {}])?.params).toEqual({ limit: 2 });
    });

    it('lets the cluster override win over the fleet', () => {
      const layers = [{ 'slow-writes': { params: { limit: 2 } } }, { 'slow-writes': { params: { limit: 3 } } }];

      expect(clusterRule(layers)?.params).toEqual({ limit: 3 });
    });

    it('lets the cluster override the severity the fleet set', () => {
      const layers = [
        { 'slow-writes': { severity: 'ticket' as const } },
        { 'slow-writes': { severity: 'page' as const } },
      ];

      expect(clusterRule(layers)?.severity).toBe('page');
    });

    it('keeps a fleet severity the cluster does not override', () => {
      const layers = [{ 'slow-writes': { severity: 'ticket' as const } }, { 'slow-writes': { params: { limit: 3 } } }];

      expect(clusterRule(layers)?.severity).toBe('ticket');
    });

    it('applies the hold-down override last written', () => {
      const layers = [{ 'slow-writes': { holdDown: '1h' } }, { 'slow-writes': { holdDown: '90s' } }];

      expect(clusterRule(layers)?.holdDownMs).toBe(90_000);
    });

    it('leaves out a rule the fleet disables', () => {
      expect(ruleSet().forCluster([{ 'slow-writes': { enabled: false } }, {}])).toEqual([]);
    });

    it('keeps a rule disabled for the fleet disabled when the cluster overrides only its parameters', () => {
      const layers = [{ 'slow-writes': { enabled: false } }, { 'slow-writes': { params: { limit: 3 } } }];

      expect(ruleSet().forCluster(layers)).toEqual([]);
    });

    it('lets a cluster enable a rule the fleet disables', () => {
      const layers = [{ 'slow-writes': { enabled: false } }, { 'slow-writes': { enabled: true } }];

      expect(
        ruleSet()
          .forCluster(layers)
          .map((r) => r.rule.id),
      ).toEqual(['slow-writes']);
    });

    it('lets a cluster disable a rule the fleet enables', () => {
      const layers = [{ 'slow-writes': { enabled: true } }, { 'slow-writes': { enabled: false } }];

      expect(ruleSet().forCluster(layers)).toEqual([]);
    });

    it('gives a following parameter the value of the one it follows, that rule’s overrides included', () => {
      const followed = paramRule({ limit: { default: 1, unit: 'seconds', description: 'limit' } });
      const follower: Rule = {
        ...paramRule({
          theirLimit: {
            default: 1,
            unit: 'seconds',
            description: 'limit',
            follows: { rule: 'slow-writes', param: 'limit' },
          },
        }),
        id: 'slower-writes',
        when: { kind: 'threshold', of: 'apiserver.write.p99', op: '>=', value: '$theirLimit' },
      };
      const set = ruleSetOf(followed, follower);
      const paramsOf = (layers: Parameters<RuleSet['forCluster']>[0]) =>
        set.forCluster(layers).find((r) => r.rule.id === 'slower-writes')?.params;

      expect(paramsOf([])).toEqual({ theirLimit: 1 });
      expect(
        paramsOf([{ 'slow-writes': { params: { limit: 3 } } }, { 'slow-writes': { params: { limit: 5 } } }]),
      ).toEqual({
        theirLimit: 5,
      });
      // The followed rule turned off on a cluster still sets the value there.
      expect(paramsOf([{ 'slow-writes': { enabled: false, params: { limit: 4 } } }])).toEqual({ theirLimit: 4 });
    });

    it('refuses a parameter that follows a rule or parameter the set does not have', () => {
      const follower = (follows: { rule: string; param: string }) =>
        paramRule({ limit: { default: 1, unit: 'seconds', description: 'limit', follows } });

      expect(() => ruleSetOf(follower({ rule: 'slow-write', param: 'limit' }))).toThrow(
        /params\.limit\.follows: follows unknown rule "slow-write": did you mean "slow-writes"\?/,
      );
      expect(() => ruleSetOf(follower({ rule: 'slow-writes', param: 'limt' }))).toThrow(
        /follows "limt", which rule "slow-writes" does not declare/,
      );
      const minutes = testRule(
        'slower-writes',
        { kind: 'threshold', of: 'apiserver.write.p99', op: '>=', value: '$m' },
        {
          params: {
            m: { default: 1, unit: 'minutes', description: 'm', follows: { rule: 'slow-writes', param: 'limit' } },
          },
        },
      );
      expect(() =>
        ruleSetOf(paramRule({ limit: { default: 1, unit: 'seconds', description: 'limit' } }), minutes),
      ).toThrow(/is in minutes but follows "limit" of rule "slow-writes", in seconds/);
    });

    it('judges nodes-unreachable’s stand-aside with node-repair-storm’s overridden storm', () => {
      const layers = [{ 'node-repair-storm': { params: { notReadyShare: 0.4, stormShare: 0.15 } } }];
      const unreachable = defaultRuleSet()
        .forCluster(layers)
        .find((r) => r.rule.id === 'nodes-unreachable');

      expect(unreachable?.params).toMatchObject({ stormNotReadyShare: 0.4, stormShare: 0.15, notReadyShare: 0.25 });
    });

    it('does not change the rule set it was built from', () => {
      const set = ruleSet();
      set.forCluster([{ 'slow-writes': { params: { limit: 9 } } }]);

      expect(set.forCluster([])[0]?.params).toEqual({ limit: 1 });
    });
  });
});
