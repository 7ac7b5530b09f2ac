import type middy from '@middy/core';
import type { z } from 'zod';
import { SentinelError } from '../shared/errors.ts';
import { problemsOf } from '../shared/schema-errors.ts';

/** The event does not match what the schedule sends: a misconfigured target, not a transient fault. */
export class EventValidationError extends SentinelError {}

/** Middy middleware: parse the event with a zod schema, or fail with every path that is wrong. */
export function validateEvent<S extends z.ZodType>(schema: S): middy.MiddlewareObj<unknown, unknown> {
  return {
    before: (request) => {
      const result = schema.safeParse(request.event);
      if (!result.success) {
        const problems = problemsOf(result.error).map((p) => `${p.path}: ${p.message}`);
        throw new EventValidationError(`invalid event: ${problems.join('; ')}`);
      }
      request.event = result.data;
    },
  };
}
