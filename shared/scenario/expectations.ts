import type { Notification } from '../engine/notification.ts';
import { isoSeconds } from '../time.ts';
import type { Expectation } from './scenario.ts';

export interface CheckResult {
  readonly expectation: Expectation;
  readonly passed: boolean;
  /** Why it passed or failed, in a sentence. */
  readonly detail: string;
  /** First match minus onset, when the expectation names an onset and something matched. */
  readonly latencyMs?: number;
  readonly firstMatch?: Notification;
}

/** Notifications match on cluster (any listed), root rule and kind. */
export function matches(expectation: Expectation, notification: Notification): boolean {
  return (
    notification.clusters.includes(expectation.cluster) &&
    (expectation.rule === undefined || notification.rule === expectation.rule) &&
    (expectation.kind === undefined || notification.kind === expectation.kind)
  );
}

export function describeExpectation(e: Expectation): string {
  const what = [e.kind ?? 'notification', e.rule && `of ${e.rule}`, `on ${e.cluster}`].filter(Boolean).join(' ');
  return e.count === undefined ? what : `${e.count} × ${what}`;
}

export function checkExpectations(expectations: readonly Expectation[], sent: readonly Notification[]): CheckResult[] {
  return expectations.map((expectation) => {
    const matching = sent.filter((n) => matches(expectation, n));
    const first = matching[0];
    const latencyMs = first && expectation.onset !== undefined ? Date.parse(first.at) - expectation.onset : undefined;
    const base = { expectation, ...(first && { firstMatch: first }), ...(latencyMs !== undefined && { latencyMs }) };
    if (expectation.count !== undefined) {
      const passed = matching.length === expectation.count;
      return { ...base, passed, detail: `expected ${expectation.count}, got ${matching.length}` };
    }
    if (!first) return { ...base, passed: false, detail: 'expected at least one, got none' };
    const at = Date.parse(first.at);
    if (expectation.after !== undefined && at < expectation.after) {
      return { ...base, passed: false, detail: `first at ${first.at}, earlier than ${isoSeconds(expectation.after)}` };
    }
    if (expectation.before !== undefined && at > expectation.before) {
      return { ...base, passed: false, detail: `first at ${first.at}, later than ${isoSeconds(expectation.before)}` };
    }
    return { ...base, passed: true, detail: `first at ${first.at}` };
  });
}
