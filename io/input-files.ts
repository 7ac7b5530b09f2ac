import { readFileSync } from 'node:fs';
import { type LoadedConfig, parseConfigText } from '../shared/config/deployment-config.ts';
import { InputError } from '../shared/errors.ts';
import { parseScenario, type Scenario } from '../shared/scenario/scenario.ts';
import { parseJson } from '../shared/schema-errors.ts';

/**
 * The one place that reads the user's files from disk, for the Lambdas (their bundled configuration), the CDK app and
 * the CLI alike: a file that cannot be read is an InputError naming it, like any other problem with its content.
 */
export function readInputText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new InputError(file, [{ path: '$', message: `cannot read the file: ${reason}` }]);
  }
}

/** Read and validate a deployment configuration; any problem is an InputError naming the file and the JSON path. */
export function readConfigFile(file: string): LoadedConfig {
  return parseConfigText(readInputText(file), file);
}

/** Read and validate a scenario file (format sentinel.scenario/v1). */
export function readScenarioFile(file: string): Scenario {
  return parseScenario(parseJson(readInputText(file), file), file);
}
