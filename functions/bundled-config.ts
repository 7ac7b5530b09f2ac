import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type LoadedConfig, parseConfigText } from '../shared/config/deployment-config.ts';
import { InputError } from '../shared/errors.ts';

/** Load the deployment configuration bundled next to the handler (or at an absolute path), once per cold start. */
export function loadBundledConfig(file: string): LoadedConfig {
  const path = resolve(process.env.LAMBDA_TASK_ROOT ?? process.cwd(), file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(path, [{ path: '$', message: `cannot read the configuration: ${(error as Error).message}` }]);
  }
  return parseConfigText(text, path);
}
