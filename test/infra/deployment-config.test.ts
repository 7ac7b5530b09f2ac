import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { jest } from '@jest/globals';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { buildSentinelApp } from '../../infra/sentinel-app.ts';
import { readConfigFile } from '../../io/input-files.ts';
import { configVerdict } from '../../shared/config/config-verdict.ts';
import { InputError } from '../../shared/errors.ts';
import { fixture, newApp, TEST_ENV } from '../../support/synth-sentinel-app.ts';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'sentinel-config-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(name: string, config: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(config));
  return file;
}

function inputErrorOf(action: () => unknown): InputError {
  try {
    action();
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('expected an InputError, but nothing was thrown');
}

const oncall = { protocol: 'email', endpoint: 'oncall@example.com' };

describe('readConfigFile', () => {
  it('names the file, the JSON path and the expectation of every problem', () => {
    const file = fixture('bad-account-id.json');
    const error = inputErrorOf(() => readConfigFile(file));
    expect(error.file).toBe(file);
    expect(error.message).toContain(file);
    expect(error.message).toContain('$.clusters[0].accountId: expected a 12-digit AWS account id');
    expect(error.message).toContain('$.digest.timeZone: expected an IANA time zone like Europe/Berlin');
  });

  it('reports a missing file as an input error about that file', () => {
    const file = path.join(dir, 'missing.json');
    expect(inputErrorOf(() => readConfigFile(file)).message).toBe(
      `${file} is not valid:\n  - $: cannot read the file: no such file`,
    );
  });
});

describe('buildSentinelApp', () => {
  it('rejects a subscriber subscribed twice to one topic, pointing at the second', () => {
    const file = writeConfig('twice.json', {
      clusters: [{ name: 'a' }, { name: 'b' }],
      subscriptions: {
        paging: [
          { clusters: ['a'], subscribers: [oncall] },
          { clusters: ['b'], subscribers: [oncall] },
        ],
      },
    });
    const error = inputErrorOf(() =>
      buildSentinelApp(newApp({ bundle: false, parent: dir }), { configFile: file, credentials: TEST_ENV }),
    );
    expect(error.problems).toEqual([
      {
        path: '$.subscriptions.paging[1].subscribers[0]',
        message: expect.stringContaining(
          'already subscribed to the paging topic at $.subscriptions.paging[0].subscribers[0]',
        ),
      },
    ]);
  });

  it('rejects a cluster filter longer than SNS allows', () => {
    const names = Array.from({ length: 150 }, (_, i) => `cluster-${i}`);
    const file = writeConfig('wide.json', {
      clusters: names.map((name) => ({ name })),
      subscriptions: {
        paging: [
          { subscribers: [oncall] },
          { clusters: names, subscribers: [{ protocol: 'email', endpoint: 'team@example.com' }] },
        ],
      },
    });
    const error = inputErrorOf(() =>
      buildSentinelApp(newApp({ bundle: false, parent: dir }), { configFile: file, credentials: TEST_ENV }),
    );
    expect(error.problems.map((p) => p.path)).toEqual(['$.subscriptions.paging[1].clusters']);
  });

  it('rejects a digest recipient listed twice', () => {
    const file = writeConfig('recipients.json', {
      clusters: [{ name: 'a' }],
      subscriptions: { paging: [{ subscribers: [oncall] }] },
      digest: { recipients: ['lead@example.com', 'lead@example.com'] },
    });
    const error = inputErrorOf(() =>
      buildSentinelApp(newApp({ bundle: false, parent: dir }), { configFile: file, credentials: TEST_ENV }),
    );
    expect(error.problems.map((p) => p.path)).toEqual(['$.digest.recipients[1]']);
  });
});

describe('synth', () => {
  // Synth prints its warnings to stderr; they are asserted here rather than shown.
  let stderr: ReturnType<typeof jest.spyOn>;
  beforeEach(() => {
    stderr = jest.spyOn(console, 'error').mockImplementation(() => {});
  });
  afterEach(() => stderr.mockRestore());

  it('warns when no paging subscription would hear the pipeline alarms', () => {
    const file = writeConfig('filtered.json', {
      clusters: [{ name: 'a' }],
      subscriptions: { paging: [{ clusters: ['a'], subscribers: [oncall] }] },
    });
    const { ops } = buildSentinelApp(newApp({ bundle: false, parent: dir }), {
      configFile: file,
      credentials: TEST_ENV,
    });
    Annotations.fromStack(ops).hasWarning('/OpsStack', Match.stringLikeRegexp('no one receives the pipeline alarms'));
  });

  it('warns when no one would be paged', () => {
    const file = writeConfig('no-paging.json', {
      clusters: [{ name: 'a' }],
      subscriptions: { notice: [{ subscribers: [oncall] }] },
    });
    const { ops } = buildSentinelApp(newApp({ bundle: false, parent: dir }), {
      configFile: file,
      credentials: TEST_ENV,
    });
    Annotations.fromStack(ops).hasWarning('/OpsStack', Match.stringLikeRegexp('no paging subscriber'));
  });

  it('warns with exactly the verdict validate-config gives, naming the file and the path', () => {
    const file = writeConfig('quiet.json', {
      clusters: [{ name: 'a', region: 'us-east-1' }],
      subscriptions: { paging: [{ clusters: ['a'], subscribers: [oncall] }] },
    });
    const { ops } = buildSentinelApp(newApp({ bundle: false, parent: dir }), {
      configFile: file,
      credentials: TEST_ENV,
    });
    const { config } = readConfigFile(file);
    const expected = configVerdict(config).warnings;

    const warnings = Annotations.fromStack(ops)
      .findWarning('*', Match.stringLikeRegexp('\\[ack: sentinel:'))
      .map((w) => String(w.entry.data).replace(/ \[ack: .*\]$/, ''));

    expect(expected.map((w) => w.path)).toEqual([
      '$.subscriptions.paging',
      '$.subscriptions.notice',
      '$.digest.recipients',
      '$.clusters[0].source.nodes',
    ]);
    expect(warnings).toEqual(expected.map((w) => `${file} ${w.path}: ${w.message}`));
  });

  it('refuses clusters of other accounts until the ops account and Region are named, whatever the credentials', () => {
    const file = writeConfig('unplaced.json', {
      clusters: [{ name: 'a', accountId: '222233334444' }],
      subscriptions: { paging: [{ subscribers: [oncall] }] },
    });
    const error = inputErrorOf(() =>
      buildSentinelApp(newApp({ bundle: false, parent: dir }), { configFile: file, credentials: TEST_ENV }),
    );
    expect(error.problems).toEqual([
      {
        path: '$.ops',
        message: expect.stringContaining('add "ops": { "accountId": "OPS_ACCOUNT_ID", "region": "REGION" }'),
      },
    ]);
  });
});
