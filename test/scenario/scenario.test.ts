import { SIGNAL_NAMES } from '../../shared/engine/signals.ts';
import { InputError } from '../../shared/errors.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { scenarioJson } from '../support/engine-fixtures.ts';

const FILE = 'scenarios/broken.json';
const START = Date.parse('2019-03-04T09:00:00Z');

function inputErrorOf(value: unknown): InputError {
  try {
    parseScenario(value, FILE);
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('the scenario parsed without an error');
}

function withSignals(signals: Record<string, unknown>, cluster = 'dev-euw1') {
  return scenarioJson({ clusters: { [cluster]: { signals } } });
}

describe('parseScenario', () => {
  describe('a valid scenario', () => {
    it('expands compact and array series into samples of one length', () => {
      const scenario = parseScenario(
        withSignals({ 'webhook.p99': '0.1*2 _', 'apiserver.requests': [5, null, 7] }),
        FILE,
      );

      expect(scenario.clusters.get('dev-euw1')).toEqual({
        'webhook.p99': [0.1, 0.1, null],
        'apiserver.requests': [5, null, 7],
      });
    });

    it('counts its steps from the length of its series', () => {
      expect(parseScenario(withSignals({ 'webhook.p99': '1*42' }), FILE).steps).toBe(42);
    });

    it('defaults the step to 60 seconds and the description to empty', () => {
      const scenario = parseScenario(scenarioJson(), FILE);

      expect([scenario.stepSeconds, scenario.description]).toEqual([60, '']);
    });

    it('accepts a cluster that declares only some signals and leaves the others absent', () => {
      const scenario = parseScenario(
        scenarioJson({
          clusters: {
            'dev-a': { signals: { 'webhook.p99': '1*3' } },
            'dev-b': { signals: { 'nodes.total': '3*3', 'nodes.replaced': '0*3' } },
          },
        }),
        FILE,
      );

      expect(Object.keys(scenario.clusters.get('dev-b') ?? {})).toEqual(['nodes.total', 'nodes.replaced']);
    });

    it.each([
      ['+90s', START + 90_000],
      ['+12m', START + 12 * 60_000],
      ['+3h', START + 3 * 3_600_000],
      ['+2d', START + 2 * 86_400_000],
      ['2019-03-04T10:30:00Z', Date.parse('2019-03-04T10:30:00Z')],
    ])('reads the time %s relative to start or as an absolute time', (text, expected) => {
      const scenario = parseScenario(scenarioJson({ expect: [{ cluster: 'dev-euw1', onset: text }] }), FILE);

      expect(scenario.expect[0]?.onset).toBe(expected);
    });

    it('turns maintenance windows into times on the named cluster', () => {
      const scenario = parseScenario(
        scenarioJson({ maintenance: [{ cluster: 'dev-euw1', from: '+2m', to: '+80m', reason: 'upgrade' }] }),
        FILE,
      );

      expect(scenario.maintenance).toEqual([
        { cluster: 'dev-euw1', from: START + 2 * 60_000, to: START + 80 * 60_000, reason: 'upgrade' },
      ]);
    });

    it('keeps each expectation with its JSON path so that a failed check can name it', () => {
      const scenario = parseScenario(
        scenarioJson({
          expect: [
            { cluster: 'dev-euw1', kind: 'page', count: 0 },
            { cluster: 'dev-euw1', rule: 'webhook-blackhole', after: '+1m', before: '+3m' },
          ],
        }),
        FILE,
      );

      expect(scenario.expect).toEqual([
        { cluster: 'dev-euw1', kind: 'page', count: 0, path: '$.expect[0]' },
        {
          cluster: 'dev-euw1',
          rule: 'webhook-blackhole',
          after: START + 60_000,
          before: START + 180_000,
          path: '$.expect[1]',
        },
      ]);
    });
  });

  describe('a malformed scenario', () => {
    it('names the file in the error', () => {
      const error = inputErrorOf(scenarioJson({ format: 'nope' }));

      expect([error.file, error.message.startsWith(`${FILE} is not valid:`)]).toEqual([FILE, true]);
    });

    it('rejects a wrong format string at $.format', () => {
      expect(inputErrorOf(scenarioJson({ format: 'sentinel.scenario/v2' })).problems).toEqual([
        { path: '$.format', message: 'expected "sentinel.scenario/v1"' },
      ]);
    });

    it.each(['2019-02-30T09:00:00Z', '2019-03-04T24:00:00Z'])('rejects the impossible start time %s', (start) => {
      expect(inputErrorOf(scenarioJson({ start })).problems).toEqual([
        { path: '$.start', message: 'expected an ISO-8601 UTC time like 2019-03-04T09:00:00Z' },
      ]);
    });

    it('rejects a start time that is not ISO-8601 UTC at $.start', () => {
      expect(inputErrorOf(scenarioJson({ start: '2019-03-04 09:00' })).problems).toEqual([
        { path: '$.start', message: 'expected an ISO-8601 UTC time like 2019-03-04T09:00:00Z' },
      ]);
    });

    it('rejects a start time with a zone offset instead of Z', () => {
      expect(inputErrorOf(scenarioJson({ start: '2019-03-04T09:00:00+01:00' })).problems[0]?.path).toBe('$.start');
    });

    it('rejects an unknown signal name at its own path, listing the valid names', () => {
      const [problem] = inputErrorOf(withSignals({ 'webhook.p98': '1' })).problems;

      expect([problem?.path, problem?.message]).toEqual([
        '$.clusters["dev-euw1"].signals["webhook.p98"]',
        expect.stringMatching(
          /^unknown signal "webhook\.p98": expected one of apiserver\.write\.p99, .*nodes\.replaced, nodes\.interrupted, nodes\.scaledin$/,
        ),
      ]);
    });

    it('rejects a series that is neither a string nor an array', () => {
      expect(inputErrorOf(withSignals({ 'webhook.p99': 5 })).problems).toEqual([
        {
          path: '$.clusters["dev-euw1"].signals["webhook.p99"]',
          message: 'expected a compact series string ("0.2*30 0.2..12*4 _*3") or an array of numbers and null',
        },
      ]);
    });

    it('rejects an array series holding something other than numbers and null', () => {
      expect(inputErrorOf(withSignals({ 'webhook.p99': [1, '2'] })).problems[0]?.path).toBe(
        '$.clusters["dev-euw1"].signals["webhook.p99"]',
      );
    });

    it('reports a compact series error at the path of the series, with the segment', () => {
      const problems = inputErrorOf(withSignals({ 'webhook.p99': '1 2*0', 'nodes.total': '1*2' })).problems;

      expect(problems).toEqual([
        {
          path: '$.clusters["dev-euw1"].signals["webhook.p99"]',
          message: 'segment 2 "2*0": the count after * must be at least 1',
        },
      ]);
    });

    it('rejects series of different lengths, naming the cluster, the signal and both lengths', () => {
      const problems = inputErrorOf(
        scenarioJson({
          clusters: {
            'dev-a': { signals: { 'webhook.p99': '1*10' } },
            'dev-b': { signals: { 'nodes.total': '1*8' } },
          },
        }),
      ).problems;

      expect(problems).toEqual([
        {
          path: '$.clusters["dev-b"].signals["nodes.total"]',
          message:
            'cluster "dev-b" signal "nodes.total" has 8 samples, but dev-a webhook.p99 has 10: every series of a scenario has the same length',
        },
      ]);
    });

    it('rejects a maintenance window on an unknown cluster, listing the known ones', () => {
      const problems = inputErrorOf(
        scenarioJson({ maintenance: [{ cluster: 'prod', from: '+1m', to: '+2m', reason: 'upgrade' }] }),
      ).problems;

      expect(problems).toEqual([
        { path: '$.maintenance[0].cluster', message: 'unknown cluster "prod": expected one of dev-euw1' },
      ]);
    });

    it('rejects an expectation on an unknown cluster', () => {
      const problems = inputErrorOf(scenarioJson({ expect: [{ cluster: 'prod', kind: 'page', count: 0 }] })).problems;

      expect(problems).toEqual([
        { path: '$.expect[0].cluster', message: 'unknown cluster "prod": expected one of dev-euw1' },
      ]);
    });

    it('rejects a maintenance window whose end is before its start', () => {
      const problems = inputErrorOf(
        scenarioJson({ maintenance: [{ cluster: 'dev-euw1', from: '+30m', to: '+10m', reason: 'upgrade' }] }),
      ).problems;

      expect(problems).toEqual([{ path: '$.maintenance[0].to', message: 'must be later than "from"' }]);
    });

    it('rejects a maintenance window that ends when it starts', () => {
      const problems = inputErrorOf(
        scenarioJson({
          maintenance: [{ cluster: 'dev-euw1', from: '+60m', to: '2019-03-04T10:00:00Z', reason: 'upgrade' }],
        }),
      ).problems;

      expect(problems.map((p) => p.path)).toEqual(['$.maintenance[0].to']);
    });

    it.each(['after', 'before'])('rejects count together with %s', (bound) => {
      const problems = inputErrorOf(
        scenarioJson({ expect: [{ cluster: 'dev-euw1', count: 1, [bound]: '+5m' }] }),
      ).problems;

      expect(problems).toEqual([
        { path: '$.expect[0]', message: '"after"/"before" bound the first match and cannot go with "count"' },
      ]);
    });

    it('rejects an unknown top-level key, naming it', () => {
      expect(inputErrorOf(scenarioJson({ expectations: [] })).problems).toEqual([
        { path: '$', message: expect.stringContaining('"expectations"') },
      ]);
    });

    it('rejects an offset without a unit', () => {
      expect(inputErrorOf(scenarioJson({ expect: [{ cluster: 'dev-euw1', after: '+90' }] })).problems).toEqual([
        {
          path: '$.expect[0].after',
          message:
            'expected an ISO-8601 UTC time (2019-03-04T09:00:00Z) or an offset from start (+90s, +12m, +3h, +2d)',
        },
      ]);
    });

    it('rejects an unknown expectation kind', () => {
      expect(inputErrorOf(scenarioJson({ expect: [{ cluster: 'dev-euw1', kind: 'email' }] })).problems[0]?.path).toBe(
        '$.expect[0].kind',
      );
    });

    it('rejects a scenario without clusters', () => {
      expect(inputErrorOf(scenarioJson({ clusters: {} })).problems).toEqual([
        { path: '$.clusters', message: 'expected at least one cluster' },
      ]);
    });

    it('rejects a scenario whose clusters have no series at all', () => {
      expect(inputErrorOf(withSignals({})).problems).toEqual([
        { path: '$.clusters', message: 'expected at least one signal series' },
      ]);
    });

    it('rejects a step that is not a positive whole number of seconds', () => {
      expect(inputErrorOf(scenarioJson({ stepSeconds: 0 })).problems.map((p) => p.path)).toEqual(['$.stepSeconds']);
    });

    it('reports every problem of a file at once', () => {
      const problems = inputErrorOf(
        scenarioJson({
          maintenance: [{ cluster: 'prod', from: '+30m', to: '+10m', reason: 'upgrade' }],
          expect: [{ cluster: 'stage', count: 0 }],
        }),
      ).problems;

      expect(problems.map((p) => p.path)).toEqual([
        '$.maintenance[0].cluster',
        '$.maintenance[0].to',
        '$.expect[0].cluster',
      ]);
    });

    it('rejects a value that is not an object', () => {
      expect(inputErrorOf([1, 2]).problems.map((p) => p.path)).toEqual(['$']);
    });
  });

  it('knows every signal of format v1 by name', () => {
    const signals = Object.fromEntries(SIGNAL_NAMES.map((name) => [name, '0*2']));

    expect(Object.keys(parseScenario(withSignals(signals), FILE).clusters.get('dev-euw1') ?? {})).toEqual(SIGNAL_NAMES);
  });
});

describe('parseScenario semantics', () => {
  const problemAt = (value: unknown, path: string) =>
    inputErrorOf(value).problems.find((problem) => problem.path === path)?.message;

  it('names an empty cluster key as such', () => {
    const value = scenarioJson({ clusters: { '': { signals: { 'webhook.p99': '0.1*10' } } } });

    expect(inputErrorOf(value).problems.map((p) => p.message)).toContain(
      'a cluster key is empty: name the cluster, like "prod-euw1"',
    );
  });

  it('refuses a negative latency or count, naming the sample', () => {
    const value = withSignals({ 'webhook.p99': '0.1*3 -2 0.1*6' });

    expect(problemAt(value, '$.clusters["dev-euw1"].signals["webhook.p99"]')).toBe(
      'sample 3 is -2: no signal is negative (latencies, counts and node numbers are 0 or more)',
    );
  });

  it('refuses an expectation whose "before" is earlier than its "after"', () => {
    const value = scenarioJson({ expect: [{ cluster: 'dev-euw1', after: '+5m', before: '+2m' }] });

    expect(problemAt(value, '$.expect[0].before')).toBe('must not be earlier than "after"');
  });

  it('refuses a maintenance window outside the scenario', () => {
    const value = scenarioJson({ maintenance: [{ cluster: 'dev-euw1', from: '+1d', to: '+2d', reason: 'upgrade' }] });

    expect(problemAt(value, '$.maintenance[0]')).toContain('lies outside the scenario');
  });

  it('refuses a time beyond the year 9999', () => {
    const value = scenarioJson({ expect: [{ cluster: 'dev-euw1', onset: '+3000000d' }] });

    expect(problemAt(value, '$.expect[0].onset')).toBe('lies beyond the year 9999');
  });
});
