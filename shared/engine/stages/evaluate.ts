import { formatEvidence } from '../../notify/notification-text.ts';
import { type ConditionResult, type Evidence, evaluateCondition } from '../evaluate-condition.ts';
import type { ClusterRule } from '../rule-set.ts';
import type { SignalWindow } from '../signal-window.ts';

/** One rule's verdict on one cluster at one step. */
export interface Finding extends ConditionResult {
  readonly cluster: string;
  readonly rule: string;
}

/** What one cluster's signals say at one step, as plain values for the stages after it. */
export interface ClusterReading {
  readonly cluster: string;
  /** Every rule's verdict, explainers first (the rule set's order). */
  readonly findings: readonly Finding[];
  /** The rules whose condition is met. */
  readonly firing: ReadonlySet<string>;
  /** Rules whose maintenance policy's `notifyWhen` holds, each with what it observed: outages no mute may hide. */
  readonly severe: ReadonlyMap<string, string>;
}

/**
 * Evaluate every rule on one cluster. A rule's maintenance condition is evaluated only while a mute covers the
 * cluster (`muted`), since it can only ever release a muted incident.
 */
export function evaluateCluster(
  cluster: string,
  window: SignalWindow,
  rules: readonly ClusterRule[],
  muted: boolean,
): ClusterReading {
  const findings: Finding[] = rules.map(({ rule, params }) => ({
    cluster,
    rule: rule.id,
    ...evaluateCondition(rule.when, window, params),
  }));
  const severe = new Map<string, string>();
  if (muted) {
    for (const { rule, params } of rules) {
      const condition = typeof rule.maintenance === 'object' ? rule.maintenance.notifyWhen : undefined;
      if (!condition) continue;
      const result = evaluateCondition(condition, window, params);
      if (result.verdict === 'met') severe.set(rule.id, describeEvidence(result.evidence));
    }
  }
  return {
    cluster,
    findings,
    firing: new Set(findings.filter((f) => f.verdict === 'met').map((f) => f.rule)),
    severe,
  };
}

/** What a met condition observed, in a line: `(5xx + 429) / requests (10 of last 10 samples) = 0.52, threshold >= 0.5`. */
export function describeEvidence(evidence: readonly Evidence[]): string {
  return evidence
    .filter((e) => e.passed)
    .map(formatEvidence)
    .join('; ');
}
