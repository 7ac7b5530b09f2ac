import { describeCoverage } from '../engine/coverage.ts';
import { evidenceLines, formatTime, hintLines } from '../notify/notification-text.ts';
import { renderNotification } from '../notify/render-notification.ts';
import { formatMinutes } from '../time.ts';
import { describeExpectation } from './expectations.ts';
import type { ReplayResult } from './replay.ts';

/** The readable timeline of a replay, with detection latency where the scenario names an onset. */
export function renderTimeline(result: ReplayResult): string {
  const { scenario } = result;
  const latencyOf = new Map<string, string>();
  for (const check of result.checks) {
    if (check.firstMatch && check.latencyMs !== undefined && !latencyOf.has(check.firstMatch.id)) {
      latencyOf.set(check.firstMatch.id, `detected ${formatMinutes(check.latencyMs)} after onset`);
    }
  }
  const end = new Date(scenario.start + (scenario.steps - 1) * scenario.stepSeconds * 1000).toISOString();
  const lines = [
    `Scenario ${scenario.name} (${scenario.file})`,
    ...(scenario.description ? [scenario.description] : []),
    `Replayed ${scenario.steps} steps of ${scenario.stepSeconds} s on ${scenario.clusters.size} cluster(s), ${formatTime(new Date(scenario.start).toISOString())} to ${formatTime(end)}.`,
    ...result.coverage.filter((c) => c.status !== 'full').map((c) => `Coverage: ${describeCoverage(c)}.`),
    '',
  ];
  if (result.notifications.length === 0) lines.push('Nothing would have been sent.');
  for (const notification of result.notifications)
    lines.push(...renderNotification(notification, latencyOf.get(notification.id)), '');
  const counts = ['page', 'ticket', 'update', 'resolve'].map(
    (kind) => `${result.notifications.filter((n) => n.kind === kind).length} ${kind}`,
  );
  lines.push(`Sent: ${counts.join(', ')}.`);
  if (result.checks.length > 0) {
    const failed = result.checks.filter((c) => !c.passed);
    lines.push(`Expectations: ${result.checks.length - failed.length} passed, ${failed.length} failed.`);
    for (const check of result.checks) {
      const latency = check.latencyMs === undefined ? '' : `, detection latency ${formatMinutes(check.latencyMs)}`;
      lines.push(
        `  ${check.passed ? 'ok  ' : 'FAIL'} ${describeExpectation(check.expectation)}: ${check.detail}${latency}`,
      );
    }
  }
  return lines.join('\n');
}

/** One JSON object per notification, as scenario format v1 specifies for `replay --json`. */
export function replayJsonLines(result: ReplayResult): string[] {
  return result.notifications.map((n) =>
    JSON.stringify({
      at: n.at,
      kind: n.kind,
      cluster: n.clusters[0],
      clusters: n.clusters,
      rule: n.rule,
      severity: n.severity,
      incident: n.incidents[0],
      incidents: n.incidents,
      reason: n.reason,
      title: n.title,
      symptoms: n.symptoms,
      causalChain: n.causalChain,
      evidence: evidenceLines(n),
      hints: hintLines(n),
      runbook: n.runbook,
      graph: n.graph,
    }),
  );
}
