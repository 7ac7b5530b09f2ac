import { resolve } from 'node:path';
import { readConfigFile } from '../io/input-files.ts';
import type { LoadedConfig } from '../shared/config/deployment-config.ts';

/** Load the deployment configuration bundled next to the handler (or at an absolute path), once per cold start. */
export function loadBundledConfig(file: string): LoadedConfig {
  return readConfigFile(resolve(process.env.LAMBDA_TASK_ROOT ?? process.cwd(), file));
}
