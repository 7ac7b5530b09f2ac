import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../support/engine-fixtures.ts';

/** Runs the command as `npx sentinel` does: tsx, process streams and exit codes. */
function sentinel(...args: string[]) {
  const { NODE_OPTIONS: _jestOptions, ...env } = process.env;
  return spawnSync(process.execPath, ['bin/sentinel.js', ...args], {
    cwd: REPO_ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describe('bin/sentinel.js', () => {
  it('replays the OPA outage with --check, exiting 0 and printing the page', () => {
    const result = sentinel('replay', '--check', 'scenarios/opa-webhook-outage.json');

    expect([result.status, result.stderr, result.stdout]).toEqual([
      0,
      '',
      expect.stringMatching(
        /^2019-03-04 09:3[0-3]Z {2}PAGE {6}Admission webhook is black-holing API writes on dev-euw1$/m,
      ),
    ]);
  });

  it('exits 2 for an unknown flag, naming it, with the usage on stderr and no stack', () => {
    const result = sentinel('replay', '--chek', 'scenarios/opa-webhook-outage.json');

    expect([result.status, result.stdout, result.stderr]).toEqual([
      2,
      '',
      'sentinel: unknown option --chek for replay: did you mean --check?\nusage:\n  sentinel replay FILE... [--json] [--check] [--config CONFIG]\nRun "sentinel replay --help" for every option.\n',
    ]);
  });

  it('prints the version of the package and exits 0', () => {
    const result = sentinel('--version');

    expect([result.status, result.stderr, result.stdout]).toEqual([0, '', 'sentinel 0.1.0\n']);
  });
});
