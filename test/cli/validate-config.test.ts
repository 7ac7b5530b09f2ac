import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_RULES } from '../../shared/engine/rules/index.ts';
import { runSentinel as run } from '../support/command-output.ts';
import { KINDED, ONCALL, TEAM, warningFreeConfig } from '../support/config-fixtures.ts';
import { repoPath } from '../support/engine-fixtures.ts';

const EXAMPLE = repoPath('config/sentinel.example.json');

describe('sentinel validate-config', () => {
  let dir: string;
  const write = (name: string, config: unknown) => {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(config));
    return file;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-validate-'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says a configuration is valid and exits 0, with nothing on stderr, even with --strict', async () => {
    const { code, output } = await run('validate-config', '--strict', '--region', 'eu-west-1', EXAMPLE);

    expect([code, output.stderrText, output.stdoutText]).toEqual([
      0,
      '',
      `${EXAMPLE} is valid: 2 cluster(s), ${DEFAULT_RULES.length} rules (0 custom), 3 subscriber(s), 1 digest recipient(s), digest MON 09:00 Europe/Berlin.`,
    ]);
  });

  it('prints the verdict as JSON with --json: errors and warnings with their paths, and exits as without it', async () => {
    const valid = await run('validate-config', '--json', EXAMPLE);
    const invalid = await run(
      'validate-config',
      '--json',
      write(
        'bad.json',
        warningFreeConfig({
          clusters: [
            { name: 'a', source: KINDED },
            { name: 'a', source: KINDED },
          ],
        }),
      ),
    );

    expect([valid.code, JSON.parse(valid.output.stdoutText)]).toEqual([
      0,
      { file: EXAMPLE, valid: true, errors: [], warnings: [] },
    ]);
    expect([invalid.code, JSON.parse(invalid.output.stdoutText).valid]).toEqual([2, false]);
  });

  it('refuses a subscriber subscribed twice to one topic, as synth does', async () => {
    const file = write(
      'twice.json',
      warningFreeConfig({
        subscriptions: {
          paging: [
            { clusters: ['a'], subscribers: [ONCALL] },
            { clusters: ['b'], subscribers: [ONCALL] },
          ],
          notice: [{ subscribers: [TEAM] }],
        },
      }),
    );

    const { code, output } = await run('validate-config', file);

    expect([code, output.stdoutText, output.stderrText]).toEqual([
      2,
      '',
      `sentinel: ${file} is not valid:\n  - $.subscriptions.paging[1].subscribers[0]: this subscriber is already subscribed to the paging topic at $.subscriptions.paging[0].subscribers[0]; SNS allows one subscription per endpoint, so merge the two "clusters" lists`,
    ]);
  });

  it('refuses a digest recipient listed twice', async () => {
    const file = write(
      'recipients.json',
      warningFreeConfig({ digest: { recipients: ['lead@example.com', 'lead@example.com'] } }),
    );

    const { code, output } = await run('validate-config', file);

    expect([code, output.stderrText]).toEqual([
      2,
      expect.stringContaining('$.digest.recipients[1]: "lead@example.com"'),
    ]);
  });

  it('warns on stderr when no one is paged, and still exits 0', async () => {
    const file = write('no-paging.json', warningFreeConfig({ subscriptions: { notice: [{ subscribers: [TEAM] }] } }));

    const { code, output } = await run('validate-config', file);

    expect([code, output.stderrText, output.stdoutText]).toEqual([
      0,
      `sentinel: ${file} has 1 warning(s):\n  - $.subscriptions.paging: no paging subscriber: pages and the pipeline alarms reach no one. Add a paging subscription without "clusters".`,
      expect.stringMatching(new RegExp(`^${file} is valid, with 1 warning\\(s\\): 2 cluster\\(s\\)`)),
    ]);
  });

  it('fails with --strict when there is a warning, exiting 1', async () => {
    const file = write('nobody.json', { clusters: [{ name: 'a', source: KINDED }] });

    const { code, output } = await run('validate-config', '--strict', file);

    expect([code, output.stdoutText, output.stderrText]).toEqual([
      1,
      '',
      `sentinel: ${file} has 1 warning(s):\n  - $.subscriptions: no subscribers and no digest recipients: no page, ticket or digest reaches anyone. Add a paging subscription without "clusters".\nsentinel: --strict fails on the warnings of ${file}: fix them, or leave --strict out`,
    ]);
  });

  it('warns when only email would hear the pipeline alarms, until a heartbeat outside AWS is named', async () => {
    const emailOnly = warningFreeConfig({
      subscriptions: { paging: [{ subscribers: [TEAM] }], notice: [{ subscribers: [TEAM] }] },
    });
    const outside = {
      ...emailOnly,
      selfMonitoring: { externalHeartbeat: { urlSecret: { secretName: 'sentinel/heartbeat' } } },
    };

    const warned = await run('validate-config', '--strict', write('email-only.json', emailOnly));
    const quiet = await run('validate-config', '--strict', write('outside.json', outside));

    expect([warned.code, warned.output.stderrText]).toEqual([
      1,
      expect.stringContaining('$.subscriptions.paging: only email hears the pipeline alarms'),
    ]);
    expect([quiet.code, quiet.output.stderrText]).toEqual([0, '']);
  });

  it('suggests the nearest cluster and rule id for a misspelt one, and echoes a bad duration with the accepted forms', async () => {
    const file = write(
      'typos.json',
      warningFreeConfig({
        rules: { overrides: { 'webhook-blackhol': { severity: 'ticket' } } },
        maintenance: [{ clusters: ['b2'], from: '2026-12-01T22:00:00Z', to: '2026-12-02T02:00:00Z', reason: 'x' }],
        poll: { every: '5 minutes' },
      }),
    );

    const { code, output } = await run('validate-config', file);

    expect(code).toBe(2);
    expect(output.stderrText).toContain('"5 minutes": expected a whole number of minutes');
    const loaded = await run(
      'validate-config',
      write(
        'typos-loaded.json',
        warningFreeConfig({ rules: { overrides: { 'webhook-blackhol': { severity: 'ticket' } } } }),
      ),
    );
    expect(loaded.output.stderrText).toContain('unknown rule "webhook-blackhol": did you mean "webhook-blackhole"?');
    const maintenance = await run(
      'validate-config',
      write(
        'typos-maintenance.json',
        warningFreeConfig({
          maintenance: [{ clusters: ['b2'], from: '2026-12-01T22:00:00Z', to: '2026-12-02T02:00:00Z', reason: 'x' }],
        }),
      ),
    );
    expect(maintenance.output.stderrText).toContain('unknown cluster "b2": did you mean "b"?');
  });

  it('passes --strict on a fleet in several Regions, since every cluster has a tripwire in its own', async () => {
    const file = write(
      'elsewhere.json',
      warningFreeConfig({
        clusters: [
          { name: 'a', source: KINDED, region: 'us-east-1' },
          { name: 'b', source: KINDED },
        ],
      }),
    );

    const { code, output } = await run('validate-config', '--strict', '--region=eu-west-1', file);

    expect([code, output.stderrText]).toEqual([0, '']);
  });

  it('refuses clusters of other accounts without the ops account and Region, with exit code 2', async () => {
    const file = write(
      'unplaced.json',
      warningFreeConfig({ clusters: [{ name: 'a', source: KINDED, accountId: '222233334444' }] }),
    );

    const { code, output } = await run('validate-config', file);

    expect([code, output.stderrLines[0], output.stderrLines[1]]).toEqual([
      2,
      `sentinel: ${file} is not valid:`,
      expect.stringContaining(
        '  - $.ops: clusters in other accounts (a in 222233334444) need the ops account and Region named',
      ),
    ]);
  });

  it('refuses a region that is not one', async () => {
    const { code, output } = await run('validate-config', '--region', 'Frankfurt', EXAMPLE);

    expect([code, output.stderrLines[0]]).toEqual([
      2,
      'sentinel: --region "Frankfurt": expected an AWS region like eu-west-1',
    ]);
  });

  it('refuses a Region that does not exist, naming the nearest one', async () => {
    const { code, output } = await run('validate-config', '--region', 'eu-wset-1', EXAMPLE);

    expect([code, output.stderrLines[0]]).toEqual([
      2,
      'sentinel: --region "eu-wset-1": not an AWS Region: did you mean "eu-west-1"?',
    ]);
  });

  it('accepts an opt-in Region', async () => {
    const { code } = await run('validate-config', '--region', 'ap-southeast-7', EXAMPLE);

    expect(code).toBe(0);
  });

  it('refuses two files', async () => {
    const { code, output } = await run('validate-config', EXAMPLE, EXAMPLE);

    expect([code, output.stderrLines[0]]).toEqual([2, 'sentinel: validate-config takes one configuration file, got 2']);
  });
});
