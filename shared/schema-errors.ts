import type { z } from 'zod';
import { InputError, type InputProblem } from './errors.ts';

/** `$.clusters["dev-euw1"].signals["webhook.p99"]`: the path a user can find in their file. */
export function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((text, key) => {
    if (typeof key === 'number') return `${text}[${key}]`;
    const name = String(key);
    return /^[A-Za-z_$][\w$]*$/.test(name) ? `${text}.${name}` : `${text}[${JSON.stringify(name)}]`;
  }, '$');
}

export function problemsOf(error: z.ZodError, prefix: readonly PropertyKey[] = []): InputProblem[] {
  return error.issues.map((issue) => ({ path: jsonPath([...prefix, ...issue.path]), message: issue.message }));
}

/** Parse with a schema, or throw an InputError that names the file and every path that is wrong. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, file: string): z.output<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new InputError(file, problemsOf(result.error));
  return result.data;
}

/** JSON.parse, with a syntax error reported as an InputError about the file. */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputError(file, [{ path: '$', message: `not valid JSON: ${(error as Error).message}` }]);
  }
}
