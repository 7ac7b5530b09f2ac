import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSentinel as run } from '../support/command-output.ts';
import { scenarioFile, scenarioJson } from '../support/engine-fixtures.ts';

const STACK_FRAME = /\n\s+at /;
/** A short scenario whose expectations pass. */
const PASSING = scenarioFile('control-plane-overload');

describe('sentinel', () => {
  let dir: string;
  const write = (name: string, content: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  /** A quiet cluster that the scenario wrongly expects a page from. */
  const failing = () =>
    write(
      'wrong-expectation.json',
      scenarioJson({
        clusters: { 'dev-a': { signals: { 'apiserver.write.p99': '0.2*5', 'apiserver.requests': '100*5' } } },
        expect: [{ cluster: 'dev-a', rule: 'control-plane-degraded', kind: 'page' }],
      }),
    );

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-cli-'));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  describe('replay --check', () => {
    it('exits 0 when every expectation passes', async () => {
      const { code, output } = await run('replay', '--check', PASSING);

      expect([code, output.stdoutText]).toEqual([0, expect.stringContaining('Expectations: 3 passed, 0 failed.')]);
    });

    it('exits 1 when an expectation fails, and says which', async () => {
      const { code, output } = await run('replay', '--check', failing());

      expect([code, output.stdoutText]).toEqual([
        1,
        expect.stringContaining('FAIL page of control-plane-degraded on dev-a: expected at least one, got none'),
      ]);
    });

    it('names the failed expectation by its path on stderr with --json', async () => {
      const file = failing();
      const { code, output } = await run('replay', '--check', '--json', file);

      expect([code, output.err]).toEqual([
        1,
        [`${file}: expectation $.expect[0] failed: expected at least one, got none`],
      ]);
    });

    it('counts the failures over several files', async () => {
      const { code, output } = await run('replay', '--check', PASSING, failing());

      expect([code, output.out.at(-1)]).toEqual([1, '1 expectation(s) failed.']);
    });
  });

  describe('replay', () => {
    it('exits 0 without --check even when an expectation fails', async () => {
      expect((await run('replay', failing())).code).toBe(0);
    });

    it('prints one JSON object per line with --json', async () => {
      const { output } = await run('replay', '--json', PASSING);
      const kinds = output.out.map((line) => (JSON.parse(line) as { kind: string }).kind);

      expect(kinds).toEqual(['page', 'resolve']);
    });

    it('replays with the rules of a configuration', async () => {
      const config = write('sentinel.json', {
        clusters: [{ name: 'prod-euw2', overrides: { 'control-plane-degraded': { severity: 'ticket' } } }],
      });

      const { output } = await run('replay', '--json', '--config', config, PASSING);

      expect(output.out.map((line) => (JSON.parse(line) as { kind: string }).kind)).toEqual(['ticket', 'resolve']);
    });
  });

  describe('replay --config', () => {
    it("says which of the configuration's clusters the scenario has", async () => {
      const config = write('matching.json', {
        clusters: [{ name: 'prod-euw2' }, { name: 'dev-quiet' }],
      });

      const { code, output } = await run('replay', '--config', config, PASSING);

      expect([code, output.err]).toEqual([
        0,
        [`sentinel: ${PASSING}: clusters of ${config} in this scenario: prod-euw2`],
      ]);
    });

    it('names the scenario clusters the configuration does not have', async () => {
      const config = write('other-cluster.json', { clusters: [{ name: 'dev-quiet' }] });

      const { output } = await run('replay', '--config', config, PASSING);

      expect(output.err).toEqual([
        `sentinel: ${PASSING}: clusters of ${config} in this scenario: none; not in the configuration (fleet-wide rules only): prod-euw2`,
      ]);
    });

    it('warns about overrides for clusters the scenario does not have', async () => {
      const config = write('stray-override.json', {
        clusters: [
          { name: 'prod-euw2' },
          { name: 'prod-euw9', overrides: { 'control-plane-degraded': { severity: 'ticket' } } },
        ],
      });

      const { code, output } = await run('replay', '--json', '--config', config, PASSING);

      expect([code, output.err]).toEqual([
        0,
        [
          `sentinel: ${PASSING}: clusters of ${config} in this scenario: prod-euw2`,
          `sentinel: warning: ${config} $.clusters[1].overrides: cluster "prod-euw9" is not in ${PASSING}, so these overrides change nothing in this replay`,
        ],
      ]);
    });
  });

  describe('bad input', () => {
    it('exits 2 for a missing file, naming it, without a stack', async () => {
      const file = join(dir, 'no-such-scenario.json');
      const { code, output } = await run('replay', '--check', file);

      expect([code, output.stderrText, STACK_FRAME.test(output.stderrText)]).toEqual([
        2,
        `sentinel: ${file} is not valid:\n  - $: cannot read the file: no such file`,
        false,
      ]);
    });

    it('quotes a file name of blanks or control characters, so that the message shows it', async () => {
      const { code, output } = await run('backtest', '--config=\t');

      expect([code, output.stderrLines[0]]).toEqual([2, 'sentinel: "\\t" is not valid:']);
    });

    it('exits 2 for malformed JSON, without a stack', async () => {
      const file = write('broken.json', '{ "format": "sentinel.scenario/v1", ');
      const { code, output } = await run('replay', file);

      expect([code, output.stderrText, STACK_FRAME.test(output.stderrText)]).toEqual([
        2,
        expect.stringContaining(`sentinel: ${file} is not valid:\n  - $: not valid JSON`),
        false,
      ]);
    });

    it('exits 2 for a scenario that breaks the format, naming the path', async () => {
      const file = write('wrong-format.json', scenarioJson({ format: 'sentinel.scenario/v0' }));
      const { code, output } = await run('replay', file);

      expect([code, output.stderrText]).toEqual([
        2,
        `sentinel: ${file} is not valid:\n  - $.format: expected "sentinel.scenario/v1"`,
      ]);
    });

    it('exits 2 for an invalid configuration, naming the path', async () => {
      const config = write('bad-config.json', { clusters: [] });
      const { code, output } = await run('replay', '--config', config, PASSING);

      expect([code, output.stderrText]).toEqual([
        2,
        `sentinel: ${config} is not valid:\n  - $.clusters: expected at least one cluster to watch`,
      ]);
    });

    it('exits 2 for an unknown command, with the usage', async () => {
      const { code, output } = await run('replya', PASSING);

      expect([code, output.stderrText]).toEqual([
        2,
        expect.stringMatching(/^sentinel: unknown command "replya"\nusage:\n {2}sentinel replay FILE\.\.\./),
      ]);
    });

    it('exits 2 when replay is given no file', async () => {
      const { code, output } = await run('replay', '--check');

      expect([code, output.stderrText]).toEqual([
        2,
        expect.stringContaining('sentinel: replay needs at least one scenario file'),
      ]);
    });

    it('prints the usage on stderr and exits 2 without a command', async () => {
      const { code, output } = await run();

      expect([code, output.stdoutText, output.stderrText]).toEqual([2, '', expect.stringContaining('usage:')]);
    });
  });

  it('prints the usage and exits 0 for help', async () => {
    const { code, output } = await run('help');

    expect([code, output.stdoutText]).toEqual([0, expect.stringContaining('sentinel replay FILE...')]);
  });
});
