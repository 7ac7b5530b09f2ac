import type { Evidence } from './evaluate-condition.ts';
import type { Severity } from './rule.ts';

/**
 * One root cause on one cluster, from the first finding until everything it explains has stayed clear for the
 * hold-down. Timestamps are ISO-8601 strings so that the record reads the same in DynamoDB, JSON and a test.
 */
export interface Incident {
  readonly id: string;
  readonly cluster: string;
  /** The root cause: the rule that explains every other rule attached to this incident. */
  readonly rule: string;
  readonly severity: Severity;
  readonly status: 'open' | 'resolved';
  readonly openedAt: string;
  readonly resolvedAt?: string;
  /** Set when a late-identified cause absorbed this incident into its own. */
  readonly mergedInto?: string;
  /** Rules attached as symptoms, in the order they arrived. */
  readonly symptoms: readonly string[];
  /** Since when the root and every symptom have been clear; unset while anything fires or data is missing. */
  readonly clearSince?: string;
  /** How often it went clear and fired again within the hold-down. */
  readonly flaps: number;
  /** When the first page or ticket went out; unset while a maintenance window holds it back. */
  readonly notifiedAt?: string;
  readonly lastNotifiedAt?: string;
  readonly paged: boolean;
  readonly notifications: number;
  readonly reminders: number;
  /** Latest evidence per member rule, from the last step it fired. */
  readonly evidence: Readonly<Record<string, readonly Evidence[]>>;
}

export function incidentId(cluster: string, rule: string, openedAt: string): string {
  return `${cluster}/${rule}/${openedAt}`;
}

export function members(incident: Incident): readonly string[] {
  return [incident.rule, ...incident.symptoms];
}

export function maxSeverity(a: Severity, b: Severity): Severity {
  return a === 'page' || b === 'page' ? 'page' : 'ticket';
}
