import { loadConfig } from '../../shared/config/deployment-config.ts';
import { configuredPlan } from '../../shared/pipeline/build-plan.ts';
import { CONFIG_FILE, KINDED, warningFreeConfig } from '../support/config-fixtures.ts';

const rulesOf = (plan: ReturnType<typeof configuredPlan>, cluster: string) =>
  plan.clusters.find((c) => c.name === cluster)?.rules ?? [];
const paramsOf = (plan: ReturnType<typeof configuredPlan>, cluster: string, rule: string) =>
  rulesOf(plan, cluster).find((r) => r.rule.id === rule)?.params;

describe('the plan of a fleet', () => {
  const plan = configuredPlan(
    loadConfig(
      warningFreeConfig({
        clusters: [
          ...['a', 'b', 'c'].map((name) => ({ name, source: KINDED })),
          {
            name: 'd',
            source: KINDED,
            overrides: { 'node-repair-storm': { params: { minReplaced: 5 } } },
          },
        ],
        rules: { overrides: { 'webhook-latency-tax': { params: { shareOfWrite: 0.5 } } } },
      }),
      CONFIG_FILE,
    ),
  );

  it('resolves the rules once for the clusters that override nothing of their own, and shares it', () => {
    expect(rulesOf(plan, 'b')).toBe(rulesOf(plan, 'a'));
    expect(rulesOf(plan, 'c')).toBe(rulesOf(plan, 'a'));
    expect(plan.clusters[1]?.minuteRules).toBe(plan.clusters[0]?.minuteRules);
    expect(paramsOf(plan, 'a', 'webhook-latency-tax')?.shareOfWrite).toBe(0.5);
  });

  it('gives a cluster with overrides of its own its own values, on top of the fleet’s', () => {
    expect(rulesOf(plan, 'd')).not.toBe(rulesOf(plan, 'a'));
    expect(paramsOf(plan, 'd', 'node-repair-storm')?.minReplaced).toBe(5);
    expect(paramsOf(plan, 'a', 'node-repair-storm')?.minReplaced).not.toBe(5);
    expect(paramsOf(plan, 'd', 'webhook-latency-tax')?.shareOfWrite).toBe(0.5);
  });
});
