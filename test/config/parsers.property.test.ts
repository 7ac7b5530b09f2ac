import fc from 'fast-check';
import { loadConfig, parseConfigText } from '../../shared/config/deployment-config.ts';
import { MAX_DATAPOINTS_PER_CLUSTER_READ } from '../../shared/engine/bounds.ts';
import { conditionSignals } from '../../shared/engine/condition.ts';
import { InputError } from '../../shared/errors.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { parseJson } from '../../shared/schema-errors.ts';
import { customRule, EXAMPLE_TEXT } from '../support/config-fixtures.ts';
import { scenarioJson } from '../support/engine-fixtures.ts';

/**
 * Every parser of user input either returns a valid result or throws an InputError that names the file; never another
 * exception, and never slowly. A failure prints its seed and path; replay it with `FC_SEED=<seed> npm run jest -- <this
 * file>`, which runs the same inputs again.
 */
const SEED = Number(process.env.FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = 2000;
/** One parse of one input: the slowest legitimate one (a config compiling the default rules) takes milliseconds; the
 * bound is far above that, so that a loaded machine cannot fail it, and far below the minutes a runaway input took. */
const MAX_PARSE_MS = 2_000;

/** The worker's heap before this file's parses: a Jest worker keeps what the files it ran before left behind. */
let heapBefore = 0;

beforeAll(() => {
  process.stdout.write(`parsers.property: FC_SEED=${SEED}\n`);
  heapBefore = process.memoryUsage().heapUsed;
});

/** Runs `parse`, and says what it did: "valid", "input-error", or throws what no parser may throw. */
function outcomeOf(parse: () => unknown, file: string): 'valid' | 'input-error' {
  const started = performance.now();
  let outcome: 'valid' | 'input-error' = 'valid';
  try {
    parse();
  } catch (error) {
    if (!(error instanceof InputError && error.file === file && error.problems.length > 0)) throw error;
    outcome = 'input-error';
  }
  const took = performance.now() - started;
  if (took > MAX_PARSE_MS) throw new Error(`a parse took ${Math.round(took)} ms, more than ${MAX_PARSE_MS} ms`);
  return outcome;
}

function check<T extends [unknown, ...unknown[]]>(property: fc.IProperty<T>): void {
  fc.assert(property, { seed: SEED, numRuns: RUNS });
}

/** A value somewhere inside a JSON document replaced by another, the way a hand edit goes wrong. */
function replacedAt(document: unknown, path: readonly string[], value: unknown): unknown {
  const copy: unknown = structuredClone(document);
  let node = copy;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return copy;
    node = (node as Record<string, unknown>)[key];
  }
  if (node !== null && typeof node === 'object') (node as Record<string, unknown>)[path.at(-1) ?? ''] = value;
  return copy;
}

/** Every key path of a JSON document. */
function pathsOf(value: unknown, prefix: readonly string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [[...prefix]];
  return [[...prefix], ...Object.entries(value).flatMap(([key, child]) => pathsOf(child, [...prefix, key]))];
}

/** Values a careless or hostile edit puts in a file. */
const hostileValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(
    -1,
    0,
    1e308,
    Number.MAX_SAFE_INTEGER,
    5,
    100_000_000,
    '3650d',
    '10000d',
    '0m',
    '1.5m',
    '',
    '{{resolve:ssm:/x/y}}',
    'prod euw1',
    '🔥',
    'https://u:p@host/x',
    'https://events.eu.pagerduty.com/integration/KEY/enqueue',
    '\uFEFF',
  ),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
);

const EXAMPLE: unknown = JSON.parse(EXAMPLE_TEXT);
const EXAMPLE_PATHS = pathsOf(EXAMPLE).filter((path) => path.length > 0);

const duration = fc
  .tuple(fc.oneof(fc.nat(100), fc.nat(), fc.constant(1e21)), fc.constantFrom('s', 'm', 'h', 'd', 'w', ''))
  .map(([n, unit]) => `${n}${unit}`);
const signal = fc.constantFrom('apiserver.write.p99', 'apiserver.5xx', 'apiserver.requests', 'nodes.notready', 'nope');
const threshold = fc.oneof(fc.double({ noNaN: false }), fc.constantFrom('$x', '$nope', 5, -1));
const leaf = fc.oneof(
  fc.record({
    kind: fc.constant('threshold'),
    of: signal,
    op: fc.constantFrom('>', '>=', '<', '!='),
    value: threshold,
  }),
  fc.record({
    kind: fc.constant('sustained'),
    of: signal,
    op: fc.constant('>='),
    value: threshold,
    m: fc.oneof(fc.nat(10), fc.integer()),
    n: fc.oneof(fc.nat(100), fc.constant(100_000_000), fc.integer()),
  }),
  fc.record({
    kind: fc.constant('window'),
    of: fc.oneof(signal, fc.record({ ratio: fc.tuple(signal, signal) })),
    aggregate: fc.constantFrom('sum', 'avg', 'max', 'episodes'),
    window: duration,
    op: fc.constant('>'),
    value: threshold,
  }),
  fc.record({
    kind: fc.constant('change'),
    of: signal,
    aggregate: fc.constant('sum'),
    window: duration,
    baseline: duration,
    mode: fc.constantFrom('ratio', 'delta'),
    op: fc.constant('>='),
    value: threshold,
  }),
);
const condition = fc.letrec((tie) => ({
  condition: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.record({
      kind: fc.constantFrom('allOf', 'anyOf', 'noneOf'),
      conditions: fc.array(tie('condition'), { maxLength: 3 }),
    }),
  ),
})).condition;
const params = fc.dictionary(
  fc.constantFrom('x', 'y'),
  fc.record({
    default: fc.double(),
    unit: fc.constantFrom('ratio', 'seconds', 'x', 'nodes'),
    description: fc.constant('p'),
  }),
);

describe('the configuration parser, on inputs generated by fast-check', () => {
  it('answers any JSON value with a valid configuration or a named error', () => {
    check(
      fc.property(fc.jsonValue(), (value) => outcomeOf(() => loadConfig(value, 'gen.json'), 'gen.json') !== undefined),
    );
  });

  it('answers the example with one value replaced anywhere with a valid configuration or a named error', () => {
    check(
      fc.property(fc.constantFrom(...EXAMPLE_PATHS), hostileValue, (path, value) => {
        outcomeOf(() => loadConfig(replacedAt(EXAMPLE, path, value), 'edit.json'), 'edit.json');
      }),
    );
  });

  it('accepts only custom rules whose reads stay within the cost limit', () => {
    check(
      fc.property(condition, params, (when, declared) => {
        const value = { clusters: [{ name: 'a' }], rules: { custom: [customRule({ when, params: declared })] } };
        if (outcomeOf(() => loadConfig(value, 'rule.json'), 'rule.json') === 'valid') {
          const { ruleSet } = loadConfig(value, 'rule.json');
          const signals = new Set(ruleSet.rules.flatMap((rule) => conditionSignals(rule.when))).size;
          expect(ruleSet.lookback(60) * signals).toBeLessThanOrEqual(MAX_DATAPOINTS_PER_CLUSTER_READ);
        }
      }),
    );
  });

  it('answers any text with a parsed value or a named error that gives the line and column', () => {
    check(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'grapheme' }),
          fc.json().map((text) => text.slice(0, Math.max(0, text.length - 1))),
        ),
        (text) => {
          try {
            parseConfigText(text, 'text.json');
          } catch (error) {
            if (!(error instanceof InputError)) throw error;
            const first = error.problems[0]?.message ?? '';
            if (first.startsWith('not valid JSON')) expect(first).toMatch(/^not valid JSON at line \d+, column \d+: /);
          }
        },
      ),
    );
  });

  it('never mistakes valid JSON text for a syntax error', () => {
    check(
      fc.property(fc.jsonValue(), (value) => {
        expect(parseJson(JSON.stringify(value, null, 2), 'ok.json')).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('the scenario parser, on inputs generated by fast-check', () => {
  const series = fc.oneof(
    fc.stringMatching(/^[0-9._*\- ]{0,24}$/),
    fc.array(fc.oneof(fc.double(), fc.constant(null)), { maxLength: 12 }),
  );
  const time = fc.oneof(
    fc.constantFrom('+1m', '+3000000d', '2019-03-04T09:05:00Z', '9999-12-31T23:59:59Z'),
    duration.map((d) => `+${d}`),
  );

  it('answers generated scenarios with a scenario or a named error', () => {
    check(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 8 }), fc.dictionary(signal, series, { maxKeys: 3 }), { maxKeys: 3 }),
        fc.array(fc.record({ cluster: fc.constantFrom('a', ''), from: time, to: time, reason: fc.constant('r') }), {
          maxLength: 2,
        }),
        fc.array(fc.record({ cluster: fc.constant('a'), after: time, before: time }), { maxLength: 2 }),
        (clusters, maintenance, expect) => {
          const value = scenarioJson({
            clusters: Object.fromEntries(Object.entries(clusters).map(([name, signals]) => [name, { signals }])),
            maintenance,
            expect,
          });
          outcomeOf(() => parseScenario(value, 'gen-scenario.json'), 'gen-scenario.json');
        },
      ),
    );
  });
});

afterAll(() => {
  // Thousands of parses must not leave memory behind: a parser that grows with its input would show here. Counted from
  // the heap the file started with, which depends on the files the same worker ran before.
  expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(1024 * 1024 * 1024);
});
