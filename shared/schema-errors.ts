import type * as z from 'zod';
import { MAX_NESTING_DEPTH, nestingDepth } from './engine/bounds.ts';
import { InputError, type InputProblem } from './errors.ts';
import { syntaxErrorAt } from './json-syntax.ts';

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

/**
 * Parse with a schema, or throw an InputError that names the file and every path that is wrong. Nesting is bounded
 * first: the schemas recurse, and a value nested thousands deep would otherwise overflow the stack inside them.
 */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, file: string): z.output<T> {
  checkNesting(value, file);
  const result = schema.safeParse(value);
  if (!result.success) throw new InputError(file, problemsOf(result.error));
  return result.data;
}

/** Refuse a value nested deeper than MAX_NESTING_DEPTH; the check stops at that depth, whatever the size below it. */
export function checkNesting(value: unknown, file: string): void {
  if (nestingDepth(value, MAX_NESTING_DEPTH) > MAX_NESTING_DEPTH) {
    throw new InputError(file, [{ path: '$', message: `nests deeper than ${MAX_NESTING_DEPTH} levels` }]);
  }
}

const BYTE_ORDER_MARK = '\uFEFF';

/**
 * JSON.parse, with a syntax error reported as an InputError about the file that gives the line and column. A UTF-8
 * byte order mark, which some Windows editors write, is accepted.
 */
export function parseJson(text: string, file: string): unknown {
  const body = text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    const where = syntaxErrorAt(body);
    const at = where ? ` at line ${where.line}, column ${where.column}` : '';
    throw new InputError(file, [{ path: '$', message: `not valid JSON${at}: ${(error as Error).message}` }]);
  }
}

/** Every string in a parsed JSON value, keys included, with the path where it stands; walked without recursion. */
export function stringsIn(value: unknown): { path: readonly PropertyKey[]; text: string }[] {
  const found: { path: readonly PropertyKey[]; text: string }[] = [];
  const stack: { value: unknown; path: readonly PropertyKey[] }[] = [{ value, path: [] }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (typeof item.value === 'string') found.push({ path: item.path, text: item.value });
    else if (item.value !== null && typeof item.value === 'object') {
      for (const [key, child] of Object.entries(item.value)) {
        const path = [...item.path, Array.isArray(item.value) ? Number(key) : key];
        if (!Array.isArray(item.value)) found.push({ path, text: key });
        stack.push({ value: child, path });
      }
    }
  }
  return found;
}
