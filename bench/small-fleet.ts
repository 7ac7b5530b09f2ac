import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { CadenceOption } from './cadence-options.ts';

/**
 * The documented settings that take a fleet under its cost goals (bench/goals.ts), each a cost the deployment chooses
 * to drop (docs/deploy.md, What it costs): no key of its own ($1.00 a month and its requests; the paging topic is then
 * not encrypted at rest), no early-warning alarms ($0.20 a month), and a 30-minute slow cadence (about $0.10 a
 * cluster-month of reads; tickets come up to 30 minutes after their condition holds, and one that holds for less may
 * be missed). The dashboard is already off by default.
 */
export const SMALL_FLEET_SETTINGS = {
  encryption: { key: 'aws-managed' },
  selfMonitoring: { earlyWarnings: false },
  poll: { every: '30m' },
} as const;

/** A copy of `configFile` with the small-fleet settings, in a temporary directory that `dispose` removes. */
export function withSmallFleetSettings(configFile: string): { readonly file: string; readonly dispose: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sentinel-small-fleet-'));
  const file = path.join(dir, 'sentinel.small-fleet.json');
  const { $schema: _schema, ...config } = JSON.parse(readFileSync(configFile, 'utf8'));
  // Merged into the configuration's own objects, so that what it sets beside them (its external heartbeat) stays.
  const settings = {
    ...SMALL_FLEET_SETTINGS,
    selfMonitoring: { ...config.selfMonitoring, ...SMALL_FLEET_SETTINGS.selfMonitoring },
    poll: { ...config.poll, ...SMALL_FLEET_SETTINGS.poll },
  };
  writeFileSync(file, `${JSON.stringify({ ...config, ...settings }, null, 2)}\n`);
  return { file, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The quiet week's polled share at the small-fleet cadence, with the tripwires, from the corpus replayed per cadence. */
export function smallFleetQuietShare(cadences: readonly CadenceOption[]): number {
  const every = SMALL_FLEET_SETTINGS.poll.every;
  const option = cadences.find((c) => c.tripwire && c.every === every);
  if (!option) throw new Error(`bench: the cadence options have no ${every} with tripwires, the small-fleet cadence`);
  return option.quietPolledShare;
}
