import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PROJECT_ROOT } from '../../infra/sentinel-function.ts';
import { cdkJsonContext, fixture } from '../../support/synth-sentinel-app.ts';

/** Runs infra/app.ts the way `cdk synth` does: context and output directory in the environment. */
function runApp(context: Record<string, unknown>, extraEnv: Record<string, string> = {}) {
  const outdir = mkdtempSync(path.join(tmpdir(), 'sentinel-app-'));
  const { NODE_OPTIONS: _, ...env } = process.env;
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: {
      ...env,
      CDK_CONTEXT_JSON: JSON.stringify({ ...cdkJsonContext(), ...context }),
      CDK_OUTDIR: outdir,
      CDK_DEFAULT_ACCOUNT: '111122223333',
      CDK_DEFAULT_REGION: 'eu-west-1',
      ...extraEnv,
    },
  });
  return { ...result, outdir, dispose: () => rmSync(outdir, { recursive: true, force: true }) };
}

describe('infra/app.ts', () => {
  it('fails on a bad configuration with the file, the JSON path and exit code 2, without a stack trace', () => {
    const file = fixture('bad-account-id.json');
    const run = runApp({ config: file });
    run.dispose();
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`sentinel: ${file} is not valid:`);
    expect(run.stderr).toContain('$.clusters[0].accountId: expected a 12-digit AWS account id');
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it('refuses to synthesize when no configuration is named, saying how to name one', () => {
    const run = runApp({ config: undefined });
    run.dispose();

    expect([run.status, run.stderr]).toEqual([
      2,
      expect.stringMatching(
        /^sentinel: no deployment configuration named: give your own with -c config=FILE[\s\S]*-c config=config\/sentinel\.example\.json or -c example=true\.\n$/,
      ),
    ]);
  });

  it('synthesizes the example configuration with -c example=true', () => {
    const run = runApp({ config: undefined, example: 'true', 'aws:cdk:bundling-stacks': [] });
    run.dispose();

    expect([run.status, run.stderr]).toEqual([0, '']);
  });

  it('synthesizes both stacks from the example configuration named with -c config', () => {
    // Without CDK's CloudFormation validation (6 s of CPU): the test above synthesizes the same configuration with it.
    const run = runApp({ config: 'config/sentinel.example.json' }, { CDK_VALIDATION: 'false' });
    try {
      expect({ status: run.status, stderr: run.stderr.includes('Error') }).toEqual({ status: 0, stderr: false });
      const manifest = JSON.parse(readFileSync(path.join(run.outdir, 'manifest.json'), 'utf8'));
      expect(Object.keys(manifest.artifacts)).toEqual(expect.arrayContaining(['OpsStack', 'SourceAccountStack']));
      expect(manifest.artifacts.OpsStack.environment).toBe('aws://111122223333/eu-west-1');
      expect(existsSync(path.join(run.outdir, 'OpsStack.template.json'))).toBe(true);
    } finally {
      run.dispose();
    }
  });
});
