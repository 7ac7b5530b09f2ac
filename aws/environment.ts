import { SentinelError } from '../shared/errors.ts';

/** A Lambda started without the environment its stack gives it. */
export class EnvironmentError extends SentinelError {}

/** Read a required environment variable once, at cold start, naming it when it is missing. */
export function requiredEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new EnvironmentError(`environment variable ${name} is not set; the stack sets it on the function`);
  }
  return value;
}

/** Read a required environment variable that holds a positive whole number, naming it when it does not. */
export function positiveIntegerEnv(name: string, env: NodeJS.ProcessEnv = process.env): number {
  const value = requiredEnv(name, env);
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) {
    throw new EnvironmentError(`environment variable ${name} is ${JSON.stringify(value)}, not a positive whole number`);
  }
  return number;
}
