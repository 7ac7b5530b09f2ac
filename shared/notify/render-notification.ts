import type { Notification } from '../engine/notification.ts';
import { formatMinutes } from '../time.ts';
import { evidenceLines, formatTime, hintBlocks } from './notification-text.ts';

const KIND_LABEL = { page: 'PAGE', ticket: 'TICKET', update: 'UPDATE', resolve: 'RESOLVE' } as const;
const INDENT = ' '.repeat(20);

/** One notification as the readable timeline shows it. */
export function renderNotification(notification: Notification, latency?: string): string[] {
  const head = `${formatTime(notification.at)}  ${KIND_LABEL[notification.kind].padEnd(8)}  ${notification.title}`;
  const lines = [head];
  const detail = (text: string) => lines.push(`${INDENT}${text}`);
  if (notification.clusters.length > 1) detail(`clusters: ${notification.clusters.join(', ')}`);
  if (latency) detail(latency);
  for (const change of notification.changes) detail(change);
  if (notification.kind === 'resolve') {
    detail(`open for ${formatMinutes(Date.parse(notification.at) - Date.parse(notification.openedAt))}`);
    return lines;
  }
  for (const chain of notification.causalChain) detail(`cause → symptom: ${chain.join(' → ')}`);
  if (notification.kind === 'update' && notification.reason !== 'reminder') return lines;
  for (const line of evidenceLines(notification)) detail(`evidence: ${line}`);
  if (notification.kind === 'page' || notification.kind === 'ticket') {
    detail('what to do:');
    for (const { line, commands } of hintBlocks(notification)) {
      detail(`  - ${line}`);
      for (const command of commands) detail(`      ${command}`);
    }
    detail(`runbook: ${notification.runbook}`);
  }
  return lines;
}
