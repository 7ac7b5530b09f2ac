import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../cli/command.ts';
import { helpOf } from '../../cli/command-line.ts';
import { DIGEST_COMMAND, digestCommand } from '../../cli/digest-command.ts';
import type { Digest } from '../../shared/digest/digest.ts';
import { WeekError } from '../../shared/digest/iso-week.ts';
import { scenarioFile } from '../support/engine-fixtures.ts';

/** What a user would see on stdout; stderr stays empty unless a test says otherwise. */
function captured() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, output: { stdout: (line: string) => out.push(line), stderr: (line: string) => err.push(line) } };
}

const OPA = scenarioFile('opa-webhook-outage');

describe('sentinel digest', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-digest-'));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('previews the digest email of the week a replayed scenario ends in', async () => {
    const { out, output } = captured();

    const code = await digestCommand({ fromReplay: OPA }, output);

    expect([code, out.join('\n')]).toEqual([
      0,
      expect.stringMatching(
        /^Subject: Sentinel digest 2019-W10: 1 page, all 2 incidents resolved \(replay of opa-webhook-outage\)\n\nK8s Incident Sentinel, weekly digest 2019-W10/,
      ),
    ]);
  });

  it('prints the whole digest as JSON with --json', async () => {
    const { out, output } = captured();

    await digestCommand({ fromReplay: OPA, json: true }, output);
    const digest = JSON.parse(out.join('\n')) as Digest;

    expect([digest.format, digest.week.label, digest.source]).toEqual([
      'sentinel.digest/v1',
      '2019-W10',
      { kind: 'replay', scenario: 'opa-webhook-outage', file: OPA },
    ]);
  });

  it('reports on the week --week names', async () => {
    const { out, output } = captured();

    await digestCommand({ fromReplay: OPA, week: '2019-W09', json: true }, output);
    const digest = JSON.parse(out.join('\n')) as Digest;

    expect([digest.week.label, digest.headline.tickets, digest.incidents.map((i) => [i.rule, i.status])]).toEqual([
      '2019-W09',
      1,
      [['webhook-latency-tax', 'open']],
    ]);
  });

  it('reads the week and its times in the time zone of the configuration it is given', async () => {
    const config = join(dir, 'berlin.json');
    writeFileSync(config, JSON.stringify({ clusters: [{ name: 'dev-euw1' }], digest: { timeZone: 'Europe/Berlin' } }));
    const { out, output } = captured();

    await digestCommand({ fromReplay: OPA, config }, output);

    expect(out.join('\n')).toContain('Opened 2019-03-04 10:31, resolved after 1 h 35 min');
    expect(out.join('\n')).toContain('all times are Europe/Berlin');
  });

  it('rejects a week that is not an ISO week, saying what one looks like', async () => {
    await expect(digestCommand({ fromReplay: OPA, week: '2019-10' }, captured().output)).rejects.toThrow(
      new WeekError('"2019-10" is not an ISO week: expected YYYY-Www, like 2026-W07'),
    );
  });

  it('asks for a scenario, or a configuration and a week, when given neither', async () => {
    await expect(digestCommand({}, captured().output)).rejects.toThrow(UsageError);
    await expect(digestCommand({ config: 'sentinel.config.json' }, captured().output)).rejects.toThrow(
      'digest needs --from-replay SCENARIO, or --config CONFIG with --week YYYY-Www',
    );
  });

  it('asks for the table when reading a deployed store without --table or SENTINEL_TABLE', async () => {
    const config = join(dir, 'plain.json');
    writeFileSync(config, JSON.stringify({ clusters: [{ name: 'dev-euw1' }] }));
    delete process.env.SENTINEL_TABLE;

    await expect(digestCommand({ config, week: '2019-W10' }, captured().output)).rejects.toThrow(
      'digest --config reads the deployed table: give --table TABLE or set SENTINEL_TABLE',
    );
  });

  it('refuses --table with a replay, which reads no table', async () => {
    await expect(digestCommand({ fromReplay: OPA, table: 'sentinel' }, captured().output)).rejects.toThrow(
      '--table reads a deployed store; it does not go with --from-replay',
    );
  });

  it('names the usage of both forms and the table variable', () => {
    expect(helpOf(DIGEST_COMMAND)).toMatch(
      /--from-replay SCENARIO.*\n.*--config CONFIG --week YYYY-Www[\s\S]*SENTINEL_TABLE/,
    );
  });
});
