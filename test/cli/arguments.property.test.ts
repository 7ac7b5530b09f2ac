import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { main } from '../../cli/main.ts';
import { CapturedCommandOutput } from '../support/command-output.ts';
import { scenarioJson } from '../support/engine-fixtures.ts';

/**
 * Property tests of the command line: whatever a person types, `sentinel` answers with exit code 0, 1, 2 or 3, a named
 * message on stderr when it refuses, no stack trace and no uncaught exception, within a deadline.
 *
 * Each run draws a new seed, which the test's name shows. To replay a failure, pass the seed (and the path fast-check
 * prints with it) back:
 *
 *   SENTINEL_FC_SEED=1234 SENTINEL_FC_PATH=12:3:0 NODE_OPTIONS=--experimental-vm-modules \
 *     npx jest test/cli/arguments.property.test.ts
 *
 * SENTINEL_FC_RUNS sets the number of runs (default 2,000 for the first property).
 *
 * No AWS: every endpoint points at a closed port on loopback with one attempt and dummy credentials, and the commands
 * that read CloudWatch or DynamoDB (poll, backtest, export-scenario, digest from a table) are only ever given
 * configuration files that do not load, so they stop before any client is built.
 */
const SEED = Number(process.env.SENTINEL_FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.SENTINEL_FC_RUNS ?? 2000);
const PATH = process.env.SENTINEL_FC_PATH;
const DEADLINE_MS = 2000;

const STACK_FRAME = /\n\s+at /;
const COMMANDS = [
  'replay',
  'validate-config',
  'poll',
  'backtest',
  'export-scenario',
  'digest',
  'test-page',
  'config-schema',
] as const;
/** Commands whose valid use reads CloudWatch or DynamoDB with several retries: they get no loadable configuration. */
const READS_AWS = new Set<string>(['poll', 'backtest', 'export-scenario', 'digest']);
const OPTION_NAMES = [
  'json',
  'check',
  'config',
  'strict',
  'region',
  'once',
  'dry-run',
  'stack',
  'cluster',
  'from',
  'to',
  'from-replay',
  'week',
  'table',
  'help',
  'version',
  'chek',
  'x',
  '',
  '-',
  'config ',
  'CONFIG',
  '__proto__',
  'constructor',
];

const AWS_ENVIRONMENT: Record<string, string> = {
  AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
  AWS_MAX_ATTEMPTS: '1',
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'example',
  AWS_EC2_METADATA_DISABLED: 'true',
};

function deadline<T>(promise: Promise<T>, ms: number, argv: readonly string[]): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms to ${JSON.stringify(argv)}`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

describe('sentinel, given any command line', () => {
  let dir: string;
  let saved: Record<string, string | undefined>;
  const files: Record<string, string> = {};

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-argv-'));
    const write = (name: string, content: unknown) => {
      files[name] = join(dir, name);
      writeFileSync(files[name], typeof content === 'string' ? content : JSON.stringify(content));
    };
    write('passing.json', scenarioJson({ expect: [{ cluster: 'dev-euw1', kind: 'page', count: 0 }] }));
    write('failing.json', scenarioJson({ expect: [{ cluster: 'dev-euw1', kind: 'page' }] }));
    write('config.json', {
      clusters: [{ name: 'dev-euw1' }],
      subscriptions: { paging: [{ subscribers: [{ protocol: 'email', endpoint: 'oncall@example.com' }] }] },
    });
    write('twice.json', {
      clusters: [{ name: 'dev-euw1' }],
      digest: { recipients: ['lead@example.com', 'lead@example.com'] },
    });
    write('broken.json', '{ "clusters": [');
    write('empty.json', '');
    saved = Object.fromEntries(Object.keys(AWS_ENVIRONMENT).map((name) => [name, process.env[name]]));
    Object.assign(process.env, AWS_ENVIRONMENT);
    delete process.env.SENTINEL_TABLE;
  });

  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** Arguments for one command: known and unknown flags, `--x=`, values of every kind, files that do and do not load. */
  function argumentsFor(command: string): fc.Arbitrary<string[]> {
    const unloadable = [files['twice.json'], files['broken.json'], files['empty.json'], files['passing.json']];
    const loadable = [files['passing.json'], files['failing.json'], files['config.json']];
    const paths = fc.constantFrom(
      ...(unloadable as string[]),
      ...((READS_AWS.has(command) ? [] : loadable) as string[]),
      join(dir, 'no-such-file.json'),
      dir,
      'nul\0byte.json',
      '',
    );
    const value = fc.oneof(
      paths,
      fc.constantFrom('now', '-3d', '=-3d', '2026-11-20T09:00:00Z', '2019-02-30T00:00:00Z', 'yesterday'),
      fc.constantFrom('2019-W10', '2019-10', 'eu-west-1', 'Frankfurt', 'OpsStack', 'prod-euw1', '0', '-'),
      fc.string({ unit: 'grapheme', maxLength: 6 }),
      fc.string({ unit: 'binary', maxLength: 6 }),
    );
    const name = fc.constantFrom(...OPTION_NAMES);
    const token = fc.oneof(
      { arbitrary: name.map((n) => `--${n}`), weight: 4 },
      { arbitrary: fc.tuple(name, value).map(([n, v]) => `--${n}=${v}`), weight: 3 },
      { arbitrary: value, weight: 4 },
      { arbitrary: fc.constantFrom('-', '--', '-h', '-x', '-abc', '---', '--=', '=', '-hx'), weight: 1 },
    );
    return fc.array(token, { maxLength: 8 });
  }

  /** A command line: mostly a known command with generated arguments, sometimes anything in the command's place. */
  const commandLine = () =>
    fc.oneof(
      { arbitrary: fc.constantFrom(...COMMANDS).chain((c) => argumentsFor(c).map((args) => [c, ...args])), weight: 8 },
      {
        arbitrary: fc
          .tuple(
            fc.oneof(
              fc.constantFrom('help', '--help', '-h', '--version', '', '-', '--json', 'replya', 'REPLAY'),
              fc.string({ unit: 'grapheme', maxLength: 6 }),
            ),
            argumentsFor('help'),
          )
          .map(([head, args]) => [head, ...args]),
        weight: 1,
      },
    );

  it(`answers every command line with 0, 1, 2 or 3 and a named message, never a stack (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(commandLine(), async (argv) => {
        const output = new CapturedCommandOutput();
        const code = await deadline(main(argv, output), DEADLINE_MS, argv);
        const printed = `${output.stdoutText}\n${output.stderrText}`;

        expect([0, 1, 2, 3]).toContain(code);
        if (code === 2 || code === 3) expect(output.stderrLines[0]).toMatch(/^(sentinel: \S|usage:$)/);
        if (code === 1) expect(printed).toMatch(/failed|--strict/);
        expect(STACK_FRAME.test(printed)).toBe(false);
      }),
      { seed: SEED, numRuns: RUNS, ...(PATH && { path: PATH }) },
    );
  });

  it(`prints the help of a command for --help after any plain arguments (seed ${SEED})`, async () => {
    const plain = fc.string({ unit: 'grapheme', maxLength: 8 }).filter((text) => !text.startsWith('-'));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...COMMANDS), fc.array(plain, { maxLength: 4 }), async (command, args) => {
        const output = new CapturedCommandOutput();
        const code = await deadline(main([command, ...args, '--help'], output), DEADLINE_MS, args);

        expect([code, output.stderrText, output.stdoutText]).toEqual([
          0,
          '',
          expect.stringContaining(`usage:\n  sentinel ${command}`),
        ]);
      }),
      { seed: SEED, numRuns: Math.ceil(RUNS / 4), ...(PATH && { path: PATH }) },
    );
  });
});
