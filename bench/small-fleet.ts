import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/**
 * The documented settings that take a small fleet under its cost goals (bench/goals.ts), each a cost the deployment chooses to drop
 * (docs/deploy.md, What it costs): no key of its own ($1.00 a month and its requests; the paging topic is then not
 * encrypted at rest), and no early-warning alarms ($0.20 a month). The dashboard is already off by default.
 */
export const SMALL_FLEET_SETTINGS = {
  encryption: { key: 'aws-managed' },
  selfMonitoring: { earlyWarnings: false },
} as const;

/** A copy of `configFile` with the small-fleet settings, in a temporary directory that `dispose` removes. */
export function withSmallFleetSettings(configFile: string): { readonly file: string; readonly dispose: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sentinel-small-fleet-'));
  const file = path.join(dir, 'sentinel.small-fleet.json');
  const { $schema: _schema, ...config } = JSON.parse(readFileSync(configFile, 'utf8'));
  writeFileSync(file, `${JSON.stringify({ ...config, ...SMALL_FLEET_SETTINGS }, null, 2)}\n`);
  return { file, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}
