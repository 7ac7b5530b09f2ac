import { SCOPE_LABELS } from '../engine/hint-scope.ts';
import type { Notification } from '../engine/notification.ts';
import type { Hint } from '../engine/rule.ts';

export function formatTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}Z`;
}

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'inf';
  return Number.isInteger(value) ? String(value) : value.toPrecision(3).replace(/\.?0+$/, '');
}

/** The evidence lines of a notification: what was observed against what was allowed. */
export function evidenceLines(notification: Notification): string[] {
  return notification.evidence.flatMap((e) =>
    e.items.map((item) => {
      const unit = item.unit === 'seconds' ? ' s' : item.unit === 'x' ? 'x' : '';
      const prefix = notification.clusters.length > 1 ? `${e.cluster}: ` : '';
      return `${prefix}[${e.rule}] ${item.what} (${item.over}) = ${formatNumber(item.observed)}${unit}, threshold ${item.op} ${formatNumber(item.threshold)}${unit}`;
    }),
  );
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
