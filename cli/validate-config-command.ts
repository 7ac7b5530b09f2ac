import { readConfigFile } from '../io/input-files.ts';
import type { CommandOutput } from './command.ts';

export const VALIDATE_CONFIG_USAGE = 'sentinel validate-config FILE';

export async function validateConfigCommand(file: string, out: CommandOutput): Promise<number> {
  const { config, ruleSet } = readConfigFile(file);
  const custom = config.rules.custom.length;
  const subscribers = [...config.subscriptions.paging, ...config.subscriptions.notice].flatMap(
    (s) => s.subscribers,
  ).length;
  out.stdout(
    `${file} is valid: ${config.clusters.length} cluster(s), ${ruleSet.rules.length} rules (${custom} custom), ${subscribers} subscriber(s), digest ${config.digest.day} ${config.digest.time} ${config.digest.timeZone}.`,
  );
  return 0;
}
