import type { SignalName } from './signals.ts';
import type { Finding } from './step.ts';

/**
 * How much of a rule could run on a cluster: all of it, part of it (branches or addends that read a signal the
 * cluster does not provide were left out), or none of it.
 */
export type CoverageStatus = 'full' | 'partial' | 'skipped';

export interface RuleCoverage {
  readonly cluster: string;
  readonly rule: string;
  readonly status: CoverageStatus;
  /** The signals the rule reads that the cluster does not provide. */
  readonly missing: readonly SignalName[];
}

export function coverageOf(finding: Finding): RuleCoverage {
  const status: CoverageStatus =
    finding.verdict === 'skipped' ? 'skipped' : finding.lacking.length > 0 ? 'partial' : 'full';
  return { cluster: finding.cluster, rule: finding.rule, status, missing: finding.lacking };
}

/** One line per cluster and rule that does not run in full, for a log or a replay timeline. */
export function describeCoverage(coverage: RuleCoverage): string {
  const missing = coverage.missing.join(', ');
  return coverage.status === 'skipped'
    ? `${coverage.rule} on ${coverage.cluster}: skipped, no ${missing}`
    : `${coverage.rule} on ${coverage.cluster}: partial, runs without ${missing}`;
}
