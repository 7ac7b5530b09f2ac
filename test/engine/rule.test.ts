import { ruleSchema } from '../../shared/engine/rule.ts';
import { DEFAULT_RULES } from '../../shared/engine/rules/index.ts';
import { InputError, type InputProblem } from '../../shared/errors.ts';
import { parseWith } from '../../shared/schema-errors.ts';

const FILE = 'rules/custom.json';

function ruleJson(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'slow-writes',
    title: 'Writes are slow',
    summary: 'Write latency is high.',
    severity: 'page',
    when: { kind: 'threshold', of: 'apiserver.write.p99', op: '>', value: 1 },
    hints: [{ text: 'Check etcd.', source: 'a talk' }],
    runbook: 'docs/runbooks/slow-writes.md',
    ...fields,
  };
}

function problemsOf(value: unknown): readonly InputProblem[] {
  try {
    parseWith(ruleSchema, value, FILE);
  } catch (error) {
    if (error instanceof InputError && error.file === FILE) return error.problems;
    throw error;
  }
  throw new Error('the rule parsed without an error');
}

describe('ruleSchema', () => {
  it.each(DEFAULT_RULES.map((rule) => [rule.id, rule] as const))('accepts the default rule %s', (_, rule) => {
    expect(ruleSchema.safeParse(rule).success).toBe(true);
  });

  it('fills in no causal links, a 15 minute hold-down and muting in maintenance by default', () => {
    const rule = ruleSchema.parse(ruleJson());

    expect([rule.params, rule.explains, rule.holdDown, rule.maintenance]).toEqual([{}, [], '15m', 'mute']);
  });

  it('rejects an unknown condition kind at the kind, listing the kinds', () => {
    expect(problemsOf(ruleJson({ when: { kind: 'spike', of: 'webhook.p99' } }))).toEqual([
      {
        path: '$.when.kind',
        message:
          'expected a condition with "kind" one of threshold, sustained, window, change, absent, allOf, anyOf, noneOf',
      },
    ]);
  });

  it('rejects an unknown signal in an operand at the operand, naming it', () => {
    const problems = problemsOf(ruleJson({ when: { kind: 'threshold', of: 'webhook.p98', op: '>', value: 1 } }));

    expect(problems).toEqual([
      { path: '$.when.of', message: expect.stringMatching(/^unknown signal "webhook\.p98": expected one of /) },
    ]);
  });

  it('rejects an unknown signal in an absent condition, listing the signals', () => {
    const problems = problemsOf(ruleJson({ when: { kind: 'absent', of: ['apiserver.writes'], window: '10m' } }));

    expect(problems).toEqual([
      {
        path: '$.when.of[0]',
        message: expect.stringMatching(/^unknown signal "apiserver\.writes": expected one of apiserver\.write\.p99, /),
      },
    ]);
  });

  it('rejects a sustained condition whose m exceeds n, at m', () => {
    const when = { kind: 'sustained', of: 'webhook.p99', op: '>=', value: 2, m: 5, n: 3 };

    expect(problemsOf(ruleJson({ when }))).toEqual([
      { path: '$.when.m', message: 'm must not exceed n ("m of the last n samples")' },
    ]);
  });

  it('rejects an episodes aggregate without where', () => {
    const when = { kind: 'window', of: 'webhook.failures', aggregate: 'episodes', window: '6h', op: '>=', value: 3 };

    expect(problemsOf(ruleJson({ when }))).toEqual([
      { path: '$.when.where', message: 'an episodes aggregate needs "where": which samples make an episode' },
    ]);
  });

  it('rejects a window that is not a duration', () => {
    const when = { kind: 'window', of: 'nodes.replaced', aggregate: 'sum', window: '30 minutes', op: '>=', value: 3 };

    expect(problemsOf(ruleJson({ when }))).toEqual([
      {
        path: '$.when.window',
        message: '"30 minutes" is not a duration: write a number and a unit, s, m, h or d, like 90s, 15m, 4h or 2d',
      },
    ]);
  });

  it('rejects a hold-down that is not a duration', () => {
    expect(problemsOf(ruleJson({ holdDown: '15' })).map((p) => p.path)).toEqual(['$.holdDown']);
  });

  it.each(['writeP99', '$1st', '$with-dash'])(
    'rejects the threshold %s that is neither a number nor a $param',
    (value) => {
      const problems = problemsOf(ruleJson({ when: { kind: 'threshold', of: 'webhook.p99', op: '>', value } }));

      expect(problems).toEqual([
        { path: '$.when.value', message: 'expected a number or a parameter reference like $writeP99Seconds' },
      ]);
    },
  );

  it('rejects a rule without hints', () => {
    expect(problemsOf(ruleJson({ hints: [] }))).toEqual([
      { path: '$.hints', message: 'a rule needs at least one remediation hint that names its source' },
    ]);
  });

  it('rejects a hint that does not name its source', () => {
    expect(problemsOf(ruleJson({ hints: [{ text: 'Check etcd.' }] })).map((p) => p.path)).toEqual([
      '$.hints[0].source',
    ]);
  });

  it('points into nested conditions', () => {
    const when = {
      kind: 'allOf',
      conditions: [{ kind: 'anyOf', conditions: [{ kind: 'threshold', of: 'webhook.p99', op: '=', value: 1 }] }],
    };

    expect(problemsOf(ruleJson({ when }))).toEqual([
      { path: '$.when.conditions[0].conditions[0].op', message: 'expected a comparator: >, >=, < or <=' },
    ]);
  });

  it('rejects a rule id that is not kebab-case', () => {
    expect(problemsOf(ruleJson({ id: 'Slow_Writes' }))).toEqual([
      { path: '$.id', message: 'expected a kebab-case rule id like webhook-blackhole' },
    ]);
  });

  it('rejects an unknown field of a condition', () => {
    const when = { kind: 'threshold', of: 'webhook.p99', op: '>', value: 1, for: '5m' };

    expect(problemsOf(ruleJson({ when })).map((p) => p.path)).toEqual(['$.when']);
  });
});
