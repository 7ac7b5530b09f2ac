import { readFile } from 'node:fs/promises';
import { type LoadedConfig, parseConfigText } from '../shared/config/deployment-config.ts';
import { InputError } from '../shared/errors.ts';
import { parseScenario, type Scenario } from '../shared/scenario/scenario.ts';
import { parseJson } from '../shared/schema-errors.ts';

export async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new InputError(file, [{ path: '$', message: `cannot read the file: ${reason}` }]);
  }
}

export async function readScenario(file: string): Promise<Scenario> {
  return parseScenario(parseJson(await readText(file), file), file);
}

export async function readConfig(file: string): Promise<LoadedConfig> {
  return parseConfigText(await readText(file), file);
}
