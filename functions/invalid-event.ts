import { ParseError } from '@aws-lambda-powertools/parser/errors';
import type middy from '@middy/core';
import { SentinelError } from '../shared/errors.ts';
import { jsonPath } from '../shared/schema-errors.ts';

/** The event does not match what its source sends: a misconfigured target, not a transient fault. */
export class EventValidationError extends SentinelError {}

/** An issue as zod reports it, or as a Standard Schema reports it (a path segment may be `{ key }`). */
interface Issue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[];
}

/**
 * Middy middleware, used just before Parser's: an event Parser rejects fails with an EventValidationError naming every
 * path that is wrong. Parser's own ParseError names none for a plain schema (the issues are only in its `cause`) and
 * the whole zod report for an envelope.
 */
export function explainInvalidEvent(): middy.MiddlewareObj {
  return {
    onError: (request) => {
      if (!(request.error instanceof ParseError)) return;
      const problems = issuesOf(request.error.cause).map(
        (issue) => `${jsonPath((issue.path ?? []).map((p) => (typeof p === 'object' ? p.key : p)))}: ${issue.message}`,
      );
      request.error = new EventValidationError(`invalid event: ${problems.join('; ')}`, { cause: request.error });
    },
  };
}

/** A plain schema's ParseError carries the issues themselves; an envelope's carries the ZodError that holds them. */
function issuesOf(cause: unknown): readonly Issue[] {
  if (Array.isArray(cause)) return cause;
  if (cause && typeof cause === 'object' && 'issues' in cause && Array.isArray(cause.issues)) return cause.issues;
  return [{ message: String(cause) }];
}
