import { spawnSync } from 'node:child_process';
import { REPO_ROOT } from '../support/engine-fixtures.ts';

/**
 * Runs the command as `npx sentinel` does. Flag errors are tested here rather than through `main()` in-process:
 * main recognises them with `instanceof TypeError`, which fails across jest's VM realm.
 */
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

  it('exits 2 for an unknown flag, naming it, with the usage and no stack', () => {
    const result = sentinel('replay', '--chek', 'scenarios/opa-webhook-outage.json');

    expect([result.status, result.stdout, result.stderr]).toEqual([
      2,
      '',
      expect.stringMatching(/^sentinel: Unknown option '--chek'[^\n]*\nusage:\n {2}sentinel replay FILE\.\.\./),
    ]);
  });
});
