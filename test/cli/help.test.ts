import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { runSentinel as run } from '../support/command-output.ts';
import { repoPath, scenarioFile } from '../support/engine-fixtures.ts';

/** Every option of every command, as a user would type it. */
const OPTIONS: Record<string, readonly string[]> = {
  replay: ['--json', '--check', '--config'],
  'validate-config': ['--strict', '--region'],
  'deploy-plan': ['--config', '--teardown'],
  poll: ['--once', '--config', '--dry-run', '--stack'],
  backtest: ['--config', '--cluster', '--from', '--to'],
  'export-scenario': ['--config', '--cluster', '--from', '--to'],
  digest: ['--from-replay', '--config', '--week', '--table', '--json'],
  'test-page': ['--stack'],
  'config-schema': [],
};
const COMMANDS = Object.keys(OPTIONS);
const PASSING = scenarioFile('control-plane-overload');

/** Every line has its quotes closed. */
const balancedQuotes = (text: string) =>
  text.split('\n').every((line) => (line.match(/"/g) ?? []).length % 2 === 0 && !/(^|\s)'[^']*$/.test(line));

describe('sentinel help', () => {
  it.each(COMMANDS.flatMap((command) => [[command, '--help'] as const, [command, '-h'] as const]))(
    'prints the help of %s for %s on stdout and exits 0',
    async (command, flag) => {
      const { code, output } = await run(command, flag);

      expect([code, output.stderrText, output.stdoutText]).toEqual([
        0,
        '',
        expect.stringContaining(`usage:\n  sentinel ${command}`),
      ]);
    },
  );

  it.each(COMMANDS)('describes every option of %s on a line of its own', async (command) => {
    const { output } = await run(command, '--help');

    for (const option of [...(OPTIONS[command] ?? []), '--help']) {
      expect(output.stdoutText).toMatch(new RegExp(`^ {2}(-h, )?${option}\\b[^\\n]* {2,}\\w[^\\n]{10,}$`, 'm'));
    }
  });

  it.each(['backtest', 'export-scenario'])('names the time formats %s accepts', async (command) => {
    const { output } = await run(command, '--help');

    expect(output.stdoutText).toEqual(
      expect.stringContaining(
        'T is an ISO-8601 UTC time (2026-11-20T09:00:00Z), "now", or a time ago written with "=": --from=-3d (s, m, h or d)',
      ),
    );
  });

  it('prints the help of a command for `sentinel help COMMAND`', async () => {
    const { code, output } = await run('help', 'replay');

    expect([code, output.stdoutText]).toEqual([0, expect.stringContaining('usage:\n  sentinel replay FILE...')]);
  });

  it.each([['--help'], ['-h'], ['help']])('prints every command for %s and exits 0', async (flag) => {
    const { code, output } = await run(flag);

    expect(code).toBe(0);
    for (const command of COMMANDS) expect(output.stdoutText).toContain(`  sentinel ${command}`);
  });

  it('prints the version of the package for --version', async () => {
    const { version } = JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { version: string };

    const { code, output } = await run('--version');

    expect([code, output.out, output.err]).toEqual([0, [`sentinel ${version}`], []]);
  });

  it('refuses help for a command that does not exist', async () => {
    const { code, output } = await run('help', 'replya');

    expect([code, output.stderrText]).toEqual([2, expect.stringMatching(/^sentinel: unknown command "replya"\n/)]);
  });
});

describe('sentinel command-line errors', () => {
  it('names an unknown option, suggests the close one, and closes its quotes', async () => {
    const { code, output } = await run('replay', '--chek', PASSING);

    expect([code, output.stdoutText, output.stderrLines[0]]).toEqual([
      2,
      '',
      'sentinel: unknown option --chek for replay: did you mean --check?',
    ]);
    expect(balancedQuotes(output.stderrText)).toBe(true);
  });

  it('prints the usage of the command after an error, on stderr', async () => {
    const { code, output } = await run('replay', '--check');

    expect([code, output.stdoutText, output.stderrText]).toEqual([
      2,
      '',
      [
        'sentinel: replay needs at least one scenario file',
        'usage:',
        '  sentinel replay FILE... [--json] [--check] [--config CONFIG]',
        'Run "sentinel replay --help" for every option.',
      ].join('\n'),
    ]);
  });

  it.each([
    ['replay', '--config=', PASSING],
    ['digest', '--from-replay', PASSING, '--config='],
    ['poll', '--once', '--dry-run', '--config='],
    ['backtest', '--config=', '--from=-1h', '--to=now'],
    ['validate-config', '--region=', 'config/sentinel.example.json'],
  ])('refuses an empty value: %s %s', async (...argv) => {
    const { code, output } = await run(...argv);
    const option = argv.find((arg) => arg.endsWith('='))?.slice(0, -1);

    expect([code, output.stderrLines[0]]).toEqual([
      2,
      `sentinel: ${option} needs a value, and "${option}=" gives it none`,
    ]);
  });

  it('refuses an option that needs a value and comes last', async () => {
    const { code, output } = await run('replay', PASSING, '--config');

    expect([code, output.stderrLines[0]]).toEqual([2, 'sentinel: --config needs a value: --config CONFIG']);
  });

  it('reads a value that starts with a dash as an option, and says how to give it', async () => {
    const { code, output } = await run('backtest', '--config', 'c.json', '--from', '-3d', '--to=now');

    expect([code, output.stderrLines[0]]).toEqual([
      2,
      'sentinel: --from needs a value, but "-3d" reads as an option: write --from=-3d',
    ]);
  });

  it('refuses a value for an option that takes none', async () => {
    const { code, output } = await run('replay', '--json=yes', PASSING);

    expect([code, output.stderrLines[0]]).toEqual([2, 'sentinel: --json takes no value, but was given "yes"']);
  });

  it('refuses an option given twice with different values', async () => {
    const { code, output } = await run('replay', '--config=a.json', '--config=b.json', PASSING);

    expect([code, output.stderrLines[0]]).toEqual([
      2,
      'sentinel: --config is given twice ("a.json", "b.json"): give it once',
    ]);
  });

  it('refuses arguments to a command that takes none', async () => {
    const { code, output } = await run('poll', 'extra', '--once', '--dry-run', '--config=c.json');

    expect([code, output.stderrLines[0]]).toEqual([
      2,
      'sentinel: poll takes no arguments besides its options, got "extra"',
    ]);
  });

  it.each([
    ['replay', ''],
    ['validate-config', ''],
    ['validate-config', '\t'],
    ['replay', '  '],
    ['validate-config', '\t\u0000'],
  ])('refuses an empty or blank file name to %s (%j), found by the property test', async (command, file) => {
    const { code, output } = await run(command, file);

    expect([code, output.stderrLines[0]]).toEqual([
      2,
      expect.stringMatching(/^sentinel: an empty argument is not a \w/),
    ]);
  });

  it('refuses an option before the command', async () => {
    const { code, output } = await run('--json', 'replay', PASSING);

    expect([code, output.stderrLines[0]]).toEqual([
      2,
      'sentinel: unknown command "--json": options go after the command, and "sentinel COMMAND --help" lists them',
    ]);
  });
});
