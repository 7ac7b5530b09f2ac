import type { Evidence } from '../engine/evaluate-condition.ts';
import { SCOPE_LABELS } from '../engine/hint-scope.ts';
import type { ClusterWhere, Notification } from '../engine/notification.ts';
import type { Hint } from '../engine/rule.ts';

export function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`;
}

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'inf';
  return Number.isInteger(value) ? String(value) : value.toPrecision(3).replace(/\.?0+$/, '');
}

/** A value with its unit as every text shows it: `2.5 s`, `3x` (a change ratio), `12` (a count). */
export function formatValue(value: number, unit: string): string {
  const suffix = unit === 'seconds' ? ' s' : unit === 'x' ? 'x' : '';
  return `${formatNumber(value)}${suffix}`;
}

/**
 * One piece of evidence in a line, the one way every page, digest and engine message writes it:
 * `webhook.p99 (2 of last 3 samples, needs 2) = 10 s, threshold >= 2.5 s`.
 */
export function formatEvidence(item: Evidence): string {
  return `${item.what} (${item.over}) = ${formatValue(item.observed, item.unit)}, threshold ${item.op} ${formatValue(item.threshold, item.unit)}`;
}

/** The evidence lines of a notification: what was observed against what was allowed. */
export function evidenceLines(notification: Notification): string[] {
  return notification.evidence.flatMap((e) =>
    e.items.map((item) => {
      const prefix = notification.clusters.length > 1 ? `${e.cluster}: ` : '';
      return `${prefix}[${e.rule}] ${formatEvidence(item)}`;
    }),
  );
}

/** How many clusters the incident counts: all of them, also when a copy cut to fit lists only the first. */
export function clusterCount(notification: Notification): number {
  return Math.max(notification.clustersTotal ?? 0, notification.clusters.length);
}

/** A hint as a page shows it: where it applies, what to do and who says so, then each command on a line of its own. */
export interface HintBlock {
  readonly line: string;
  readonly commands: readonly string[];
}

export function hintBlock(hint: Hint): HintBlock {
  const label = hint.appliesTo ? `[${hint.appliesTo.map((scope) => SCOPE_LABELS[scope]).join(' / ')}] ` : '';
  return { line: `${label}${hint.text} (${hint.source})`, commands: hint.commands ?? [] };
}

export function hintBlocks(notification: Notification): HintBlock[] {
  return notification.hints.map(hintBlock);
}

/** One string per hint: its line, then its commands, each on a line of its own and indented to copy cleanly. */
export function hintLines(notification: Notification): string[] {
  return hintBlocks(notification).map(({ line, commands }) =>
    [line, ...commands.map((command) => `    ${command}`)].join('\n'),
  );
}

/** "account 111122223333, eu-west-1": where a cluster runs, for a first screen; "" when neither is known. */
export function describeWhere(where: ClusterWhere | undefined): string {
  return [where?.account && `account ${where.account}`, where?.region].filter(Boolean).join(', ');
}
