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
/** Every tenth step is plenty to meet each rule firing and keeps the week-long scenarios quick. */
const STRIDE = 10;

/** Minutes of CloudWatch showing nothing: a poll's worth, a rule's 2-of-3, signals-missing's window, half an hour. */
const BLIND_MINUTES = [1, 3, 10, 30];

describe('a rule whose newest data is missing', () => {
  it('is never clear, on any shipped scenario, with its newest 1, 3, 10 or 30 minutes missing', () => {
    const rules = defaultRuleSet().forCluster([]);
    const cleared: string[] = [];
    let firings = 0;
    for (const name of SCENARIOS) {
      const scenario = loadScenario(name);
      for (const [cluster, series] of scenario.clusters) {
        const withCompanions = withChurnCompanions(series);
        for (let end = 0; end < scenario.steps; end += STRIDE) {
          const window = new SeriesWindow(withCompanions, scenario.stepSeconds, end);
          for (const { rule, params } of rules) {
            if (evaluateCondition(rule.when, window, params).verdict !== 'met') continue;
            firings++;
            for (const minutes of BLIND_MINUTES) {
              const blind = blinded(window, Math.round((minutes * 60) / scenario.stepSeconds));
              const verdict: Verdict = evaluateCondition(rule.when, blind, params).verdict;
              if (verdict !== 'met' && verdict !== 'unknown')
                cleared.push(`${name} ${cluster} step ${end} ${rule.id}, ${minutes} min blind: ${verdict}`);
            }
          }
        }
      }
    }
    expect(firings).toBeGreaterThan(100);
    expect(cleared).toEqual([]);
  });
});
