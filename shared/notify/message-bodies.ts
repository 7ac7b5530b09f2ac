import type { Notification } from '../engine/notification.ts';
import { formatMinutes } from '../time.ts';
import {
  fitMessage,
  type MessageAttributes,
  type MessageBodies,
  type RenderedMessage,
  SUBJECT_LIMIT,
} from './fit-message.ts';
import { evidenceLines, formatTime, hintBlocks } from './notification-text.ts';

const KIND_TAG = { page: 'PAGE', ticket: 'TICKET', update: 'UPDATE', resolve: 'RESOLVED' } as const;

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
  lines.push('', `Runbook: ${notification.runbook}`);
  if (notification.graph) lines.push(`Graph of the evidence: ${notification.graph}`);
  lines.push(`Incident ids: ${notification.incidents.join(', ')}`);
  return lines.join('\n');
}

/**
 * AWS Chatbot custom-notification JSON, so a Slack or Teams channel behind Chatbot shows it as is
 * (https://docs.aws.amazon.com/chatbot/latest/adminguide/custom-notifs.html). The runbook and the graph are its last
 * next steps.
 */
export function chatbotOf(notification: Notification): object {
  const links = [
    `Runbook: ${notification.runbook}`,
    ...(notification.graph ? [`Graph of the evidence: ${notification.graph}`] : []),
  ];
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
      ].join('\n'),
      nextSteps: [
        ...(notification.kind === 'resolve'
          ? []
          : hintBlocks(notification).map(({ line, commands }) =>
              [line, ...commands.map((command) => `\`${command}\``)].join('\n'),
            )),
        ...links,
      ],
      keywords: [notification.severity, notification.kind, notification.rule, ...notification.clusters.slice(0, 5)],
    },
    metadata: {
      threadId: notification.incidents[0] ?? notification.id,
      summary: asciiLine(notification.title, 200),
      eventType: notification.kind,
      additionalContext: {
        rule: notification.rule,
        openedAt: notification.openedAt,
        at: notification.at,
      },
    },
  };
}

/**
 * The `cluster` attribute lists at most this many names, and at most `CLUSTER_ATTRIBUTE_BYTES` of them: a fleet page
 * names thousands, and the attribute counts against the message limit like the body does.
 */
export const CLUSTER_ATTRIBUTE_NAMES = 100;
export const CLUSTER_ATTRIBUTE_BYTES = 8192;
/**
 * The last element of a `cluster` attribute that does not list every cluster. No cluster can have this name (EKS
 * names are letters, digits, `-` and `_`), and a filter policy on a cluster allowlists it too, so that a subscriber
 * to one cluster still hears of a fleet page that may include it (infra/cluster-filter.ts).
 */
export const MORE_CLUSTERS = '(more clusters)';

/**
 * The attributes subscribers filter on: `severity`, `kind`, `rule`, and `cluster`, a String.Array, so that a filter
 * policy on one cluster matches a notification that groups several. A list too long for the attribute keeps its first
 * names, ends with `MORE_CLUSTERS` and comes with `clusters-truncated: "true"`; the body names every cluster that
 * fits the message (renderMessage).
 */
export function notificationAttributes(notification: Notification): MessageAttributes {
  const text = (value: string) => ({ DataType: 'String', StringValue: value }) as const;
  const listed: string[] = [];
  const bytes = (names: readonly string[]) => new TextEncoder().encode(JSON.stringify(names)).length;
  for (const cluster of notification.clusters) {
    const next = [...listed, cluster, MORE_CLUSTERS];
    if (listed.length === CLUSTER_ATTRIBUTE_NAMES || bytes(next) > CLUSTER_ATTRIBUTE_BYTES) break;
    listed.push(cluster);
  }
  const cut = listed.length < notification.clusters.length;
  return {
    severity: text(notification.severity),
    kind: text(notification.kind),
    rule: text(notification.rule),
    cluster: { DataType: 'String.Array', StringValue: JSON.stringify(cut ? [...listed, MORE_CLUSTERS] : listed) },
    ...(cut && { 'clusters-truncated': text('true') }),
  };
}

/** What a notification cut to fit lists, and what its JSON bodies say it left out. */
interface Cut {
  readonly shown: Notification;
  readonly omitted?: {
    /** Clusters not named (nor their incidents and evidence), of `of`. */
    readonly clusters: number;
    /** Named clusters whose evidence is left out. */
    readonly evidenceOf: number;
    readonly of: number;
  };
  /** The line that says so, under what changed. */
  readonly note?: string;
}

function bodiesOf({ shown, omitted }: Cut): MessageBodies {
  const json = JSON.stringify(omitted ? { ...shown, omitted } : shown);
  const text: Notification =
    omitted && omitted.clusters > 0
      ? { ...shown, clusters: [...shown.clusters, `(+${omitted.clusters} more)`] }
      : shown;
  return {
    default: emailOf(text),
    email: emailOf(text),
    sms: smsOf(shown),
    https: JSON.stringify(chatbotOf(text)),
    sqs: json,
    lambda: json,
  };
}

/** The notification naming its first `names` clusters (with their incidents), with evidence for the first `evidence`. */
function cutTo(notification: Notification, names: number, evidence: number): Cut {
  const total = notification.clusters.length;
  const named = Math.min(names, total);
  const proven = Math.min(evidence, named);
  if (proven === total) return { shown: notification };
  const withEvidence = new Set(notification.clusters.slice(0, proven));
  const cuts = [
    ...(named < total ? [`${total - named} of ${total} clusters not listed`] : []),
    ...(proven < named ? [`evidence shown for the first ${proven} of ${total} clusters`] : []),
  ];
  const note = `truncated to fit 256 KiB: ${cuts.join('; ')}`;
  return {
    shown: {
      ...notification,
      clusters: notification.clusters.slice(0, named),
      incidents: notification.incidents.slice(0, named),
      evidence: notification.evidence.filter((e) => withEvidence.has(e.cluster)),
      changes: [...notification.changes, note],
    },
    omitted: { clusters: total - named, evidenceOf: named - proven, of: total },
    note,
  };
}

/** When not even every cluster's name fits, evidence stays for this many of those that are named. */
const EVIDENCE_FLOOR = 10;

/**
 * Subject, one body per protocol and the attributes, within SNS's limit as SNS measures it (fit-message.ts). A
 * grouped notification over a large fleet first leaves out evidence (kept for the first clusters), then, if every
 * name does not fit even so, the clusters after the first that fit with their incidents; it says what it left out in
 * the text (`(+N more)` and a line under what changed) and in the JSON (`omitted`).
 */
export function renderMessage(notification: Notification, limitBytes?: number): RenderedMessage {
  const subject = subjectOf(notification);
  const attributes = notificationAttributes(notification);
  const total = notification.clusters.length;
  const render = (cut: Cut): RenderedMessage => ({
    subject,
    bodies: bodiesOf(cut),
    attributes,
    ...(cut.note && { truncated: cut.note }),
  });
  const fitted =
    fitMessage((evidence) => render(cutTo(notification, total, evidence)), { least: 0, most: total }, limitBytes) ??
    fitMessage(
      (names) => render(cutTo(notification, names, Math.min(names, EVIDENCE_FLOOR))),
      { least: 1, most: total },
      limitBytes,
    );
  if (fitted) return fitted;
  // Evidence and hints of one cluster alone exceed the limit: keep the headline and the runbook, never large.
  const note = 'truncated to fit 256 KiB: evidence and hints left out';
  const bare = { ...notification, evidence: [], hints: [], changes: [...notification.changes, note] };
  return { ...render(cutTo(bare, 1, 1)), truncated: note };
}
