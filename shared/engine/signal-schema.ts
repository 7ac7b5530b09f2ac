import * as z from 'zod';
import { isSignalName, SIGNAL_NAMES, type SignalName } from './signals.ts';

export function unknownSignalMessage(name: unknown): string {
  return `unknown signal ${JSON.stringify(name)}: expected one of ${SIGNAL_NAMES.join(', ')}`;
}

export const signalSchema = z.enum(SIGNAL_NAMES as [SignalName, ...SignalName[]], {
  error: (issue) => unknownSignalMessage(issue.input),
});

/** An object keyed by signal names, any subset of them; an unknown key is named with the valid ones. */
export function signalRecord<V extends z.ZodType>(value: V) {
  return z
    .record(z.string(), value)
    .superRefine((record, context) => {
      for (const key of Object.keys(record)) {
        if (!isSignalName(key)) context.addIssue({ code: 'custom', path: [key], message: unknownSignalMessage(key) });
      }
    })
    .transform((record) => record as Partial<Record<SignalName, z.output<V>>>);
}
