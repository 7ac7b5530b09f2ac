import type { Evidence } from './evaluate-condition.ts';
import type { Finding } from './step.ts';

/** A rule that did not fire, though every comparison that held it back came within the margin of its threshold. */
export interface NearMiss {
  readonly cluster: string;
  readonly rule: string;
  /** The comparison closest to firing, for the digest to quote. */
  readonly closest: Evidence;
  /** How far from the threshold, as a share of it: 0 is on it, `margin` is the edge of "near". */
  readonly distance: number;
}

function distance(evidence: Evidence): number {
  if (evidence.threshold === 0) return evidence.observed === 0 ? 0 : Number.POSITIVE_INFINITY;
  const gap =
    evidence.op === '>' || evidence.op === '>='
      ? evidence.threshold - evidence.observed
      : evidence.observed - evidence.threshold;
  return Math.max(0, gap / Math.abs(evidence.threshold));
}

export function nearMisses(findings: readonly Finding[], margin: number): NearMiss[] {
  return findings.flatMap((finding) => {
    if (finding.verdict !== 'unmet') return [];
    const failing = finding.evidence.filter((e) => !e.passed);
    if (failing.length === 0 || !failing.every((e) => distance(e) <= margin)) return [];
    const closest = failing.reduce((a, b) => (distance(b) < distance(a) ? b : a));
    return [{ cluster: finding.cluster, rule: finding.rule, closest, distance: distance(closest) }];
  });
}
