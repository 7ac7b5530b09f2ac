import { readdirSync } from 'node:fs';
import { withChurnCompanions } from '../../shared/churn/node-termination.ts';
import { evaluateCondition, type Verdict } from '../../shared/engine/evaluate-condition.ts';
import { SeriesWindow, type SignalWindow } from '../../shared/engine/signal-window.ts';
import { defaultRuleSet, loadScenario, repoPath } from '../support/engine-fixtures.ts';

/**
 * The invariant the lifecycle rests on: missing recent data is "unknown", never "clear". Wherever a default rule
 * fires on a shipped scenario, the same window with its newest minutes gone (CloudWatch showing nothing since then,
 * every signal still provided) must leave the rule firing or unknown: unmet would let its incident resolve on no data.
 */

/** The window as a poll sees it when CloudWatch shows nothing for the newest `blind` samples. */
function blinded(window: SignalWindow, blind: number): SignalWindow {
  return {
    stepSeconds: window.stepSeconds,
    has: (signal) => window.has(signal),
    sample: (signal, back) => (back < blind ? null : window.sample(signal, back)),
  };
}

const SCENARIOS = readdirSync(repoPath('scenarios'))
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.replace(/\.json$/, ''));
/** Every fifth step is plenty to meet each rule firing and keeps the week-long scenarios quick. */
const STRIDE = 5;

describe('a rule whose newest data is missing', () => {
  const rules = defaultRuleSet().forCluster([]);

  it.each([1, 3, 10, 30])('is never clear with its newest %i minutes missing, on any shipped scenario', (minutes) => {
    const cleared: string[] = [];
    let firings = 0;
    for (const name of SCENARIOS) {
      const scenario = loadScenario(name);
      const blind = Math.round((minutes * 60) / scenario.stepSeconds);
      for (const [cluster, series] of scenario.clusters) {
        const withCompanions = withChurnCompanions(series);
        for (let end = 0; end < scenario.steps; end += STRIDE) {
          const window = new SeriesWindow(withCompanions, scenario.stepSeconds, end);
          for (const { rule, params } of rules) {
            if (evaluateCondition(rule.when, window, params).verdict !== 'met') continue;
            firings++;
            const verdict: Verdict = evaluateCondition(rule.when, blinded(window, blind), params).verdict;
            if (verdict !== 'met' && verdict !== 'unknown')
              cleared.push(`${name} ${cluster} step ${end} ${rule.id}: ${verdict}`);
          }
        }
      }
    }
    expect(firings).toBeGreaterThan(100);
    expect(cleared).toEqual([]);
  });
});
