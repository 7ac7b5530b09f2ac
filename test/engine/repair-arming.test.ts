import { REPAIRS_THAT_ARM, repairsArmUntil } from '../../shared/churn/node-termination.ts';
import { DEFAULT_RULES } from '../../shared/engine/rules/index.ts';

const minute = 60_000;

describe('minute polling armed by node churn', () => {
  it('starts at the fewest possible repairs node-repair-storm counts, so no minute read comes before the rule could fire', () => {
    const rule = DEFAULT_RULES.find((r) => r.id === 'node-repair-storm');

    expect(rule?.params.minReplaced?.default).toBe(REPAIRS_THAT_ARM);
  });

  it('arms until 30 minutes after the last of enough repairs within 30 minutes, and not for fewer or older ones', () => {
    const enough = Array.from({ length: REPAIRS_THAT_ARM }, (_, i) => i * 5 * minute);
    const spread = Array.from({ length: REPAIRS_THAT_ARM }, (_, i) => i * 20 * minute);

    expect([
      repairsArmUntil(enough),
      repairsArmUntil(enough.slice(1)),
      repairsArmUntil(spread),
      repairsArmUntil([]),
    ]).toEqual([(REPAIRS_THAT_ARM - 1) * 5 * minute + 30 * minute, undefined, undefined, undefined]);
  });
});
