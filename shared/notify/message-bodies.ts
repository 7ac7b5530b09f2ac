import type { Notification } from '../engine/notification.ts';
import { evidenceLines, formatMinutes, formatTime, hintBlocks } from './notification-text.ts';

/** SNS limits: a subject of at most 100 ASCII characters, and a message of at most 256 KiB in all. */
export const SUBJECT_LIMIT = 100;
export const MESSAGE_LIMIT_BYTES = 262_144;

const KIND_TAG = { page: 'PAGE', ticket: 'TICKET', update: 'UPDATE', resolve: 'RESOLVED' } as const;

/** The message for every protocol, as SNS `MessageStructure: json` wants it. */
export interface MessageBodies {
  readonly default: string;
  readonly email: string;
  readonly sms: string;
  readonly https: string;
  readonly sqs: string;
  readonly lambda: string;
}

export interface RenderedMessage {
  readonly subject: string;
  readonly bodies: MessageBodies;
  /** What truncation left out to fit SNS's limit, if anything. */
  readonly truncated?: string;
}

/** SNS subjects must be printable ASCII on one line; typographic characters get plain stand-ins. */
export function asciiLine(text: string, limit: number): string {
  const plain = text
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\u2192/g, '->')
    .replace(/\u00d7/g, 'x')
    .replace(/\u2026/g, '...')
    .replace(/\s+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '?')
    .trim();
  return plain.length <= limit ? plain : `${plain.slice(0, limit - 3).trimEnd()}...`;
}

export function subjectOf(notification: Notification): string {
  return asciiLine(`[${KIND_TAG[notification.kind]}] ${notification.title}`, SUBJECT_LIMIT);
}

export function smsOf(notification: Notification): string {
  const where =
    notification.clusters.length === 1 ? notification.clusters[0] : `${notification.clusters.length} clusters`;
  return asciiLine(`${KIND_TAG[notification.kind]} ${notification.rule} ${where} ${formatTime(notification.at)}`, 140);
}

export function emailOf(notification: Notification): string {
  const lines = [
    notification.title,
    '',
    `${KIND_TAG[notification.kind]} (${notification.severity}) at ${formatTime(notification.at)}, incident open since ${formatTime(notification.openedAt)}`,
    `Cluster${notification.clusters.length > 1 ? 's' : ''}: ${notification.clusters.join(', ')}`,
    `Cause: ${notification.rule}`,
    '',
    notification.summary,
  ];
  if (notification.changes.length > 0) lines.push('', 'What changed:', ...notification.changes.map((c) => `  - ${c}`));
  if (notification.causalChain.length > 0) {
    lines.push('', 'Causal chain:', ...notification.causalChain.map((chain) => `  ${chain.join(' -> ')}`));
  }
  if (notification.kind === 'resolve') {
    lines.push('', `Open for ${formatMinutes(Date.parse(notification.at) - Date.parse(notification.openedAt))}.`);
  } else {
    const evidence = evidenceLines(notification);
    if (evidence.length > 0) lines.push('', 'Evidence:', ...evidence.map((e) => `  - ${e}`));
    lines.push('', 'What to do:');
    for (const { line, commands } of hintBlocks(notification)) {
      lines.push(`  - ${line}`, ...commands.map((command) => `        ${command}`));
    }
  }
  lines.push('', `Runbook: ${notification.runbook}`, `Incident ids: ${notification.incidents.join(', ')}`);
  return lines.join('\n');
}

/** AWS Chatbot custom-notification JSON, so a Slack or Teams channel behind Chatbot shows it as is. */
export function chatbotOf(notification: Notification): object {
  return {
    version: '1.0',
    source: 'custom',
    id: notification.id,
    content: {
      textType: 'client-markdown',
      title: `${KIND_TAG[notification.kind]}: ${notification.title}`,
      description: [
        notification.summary,
        `*Clusters:* ${notification.clusters.join(', ')}`,
        ...notification.changes.map((c) => `*Change:* ${c}`),
        ...evidenceLines(notification).map((e) => `- ${e}`),
        `*Runbook:* ${notification.runbook}`,
      ].join('\n'),
      nextSteps:
        notification.kind === 'resolve'
          ? []
          : hintBlocks(notification).map(({ line, commands }) =>
              [line, ...commands.map((command) => `\`${command}\``)].join('\n'),
            ),
      keywords: [notification.severity, notification.kind, notification.rule, ...notification.clusters.slice(0, 5)],
    },
    metadata: {
      threadId: notification.incidents[0] ?? notification.id,
      summary: asciiLine(notification.title, 200),
      eventType: notification.kind,
      additionalContext: { rule: notification.rule, openedAt: notification.openedAt, at: notification.at },
    },
  };
}

function bodiesOf(notification: Notification): MessageBodies {
  const full = JSON.stringify(notification);
  return {
    default: emailOf(notification),
    email: emailOf(notification),
    sms: smsOf(notification),
    https: JSON.stringify(chatbotOf(notification)),
    sqs: full,
    lambda: full,
  };
}

export function messageBytes(bodies: MessageBodies): number {
  return new TextEncoder().encode(JSON.stringify(bodies)).length;
}

/**
 * Render every protocol's body within SNS's limit. A grouped notification over a large fleet is cut by evidence
 * (kept for the first clusters), then by the cluster list, and the cut is said in the message, never silent.
 */
export function renderMessage(notification: Notification, limitBytes = MESSAGE_LIMIT_BYTES): RenderedMessage {
  const subject = subjectOf(notification);
  let bodies = bodiesOf(notification);
  if (messageBytes(bodies) <= limitBytes) return { subject, bodies };
  for (let keep = notification.clusters.length; keep >= 1; keep = Math.floor(keep / 2)) {
    const cut = notification.clusters.length - keep;
    const kept = new Set(notification.clusters.slice(0, keep));
    const note = `truncated to fit 256 KiB: ${cut} of ${notification.clusters.length} clusters not listed`;
    const smaller: Notification = {
      ...notification,
      clusters: [...notification.clusters.slice(0, keep), `(+${cut} more)`],
      incidents: notification.incidents.slice(0, keep),
      evidence: notification.evidence.filter((e) => kept.has(e.cluster)),
      changes: [...notification.changes, note],
    };
    bodies = bodiesOf(smaller);
    if (messageBytes(bodies) <= limitBytes) return { subject, bodies, truncated: note };
  }
  // Evidence and hints alone exceed the limit: keep the headline and the runbook, which are never large.
  const minimal: Notification = {
    ...notification,
    evidence: [],
    hints: [],
    clusters: notification.clusters.slice(0, 1),
  };
  return { subject, bodies: bodiesOf(minimal), truncated: 'truncated to fit 256 KiB: evidence and hints left out' };
}
