import type { Notification } from '../engine/notification.ts';
import { formatMinutes } from '../time.ts';
import {
  fitMessage,
  largestFitting,
  type MessageAttributes,
  type MessageBodies,
  type RenderedMessage,
  SUBJECT_LIMIT,
} from './fit-message.ts';
import {
  clusterCount,
  describeWhere,
  evidenceLines,
  formatTime,
  type HintBlock,
  hintBlocks,
} from './notification-text.ts';
import { PROTOCOL_LIMITS, SLACK_ESCAPES } from './protocol-limits.ts';
import { isTestPage } from './test-page.ts';

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

/** Text cut to `limit` characters, saying so with `...`. */
export function cutText(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 3)}...`;
}

/**
 * The title without a leading word that repeats the kind's tag (`Update: `, `Resolved: `), so that a subject or a
 * chat title says the kind once: `[UPDATE] New symptom ...`, never `[UPDATE] Update: ...`.
 */
function titleAfterTag(notification: Notification): string {
  const tag = KIND_TAG[notification.kind];
  const prefix = `${tag.toLowerCase()}: `;
  const { title } = notification;
  return title.toLowerCase().startsWith(prefix) ? title.slice(prefix.length) : title;
}

export function subjectOf(notification: Notification): string {
  return withWhere(`[${KIND_TAG[notification.kind]}] ${titleAfterTag(notification)}`, notification, SUBJECT_LIMIT);
}

/**
 * A one-line title with where its first cluster runs after it, `... on prod-a (account 111122223333, eu-west-1)`,
 * as plain ASCII within `limit`; the title alone (cut if need be) when both do not fit, as the title names the
 * cluster and the body says where it runs.
 */
export function withWhere(title: string, notification: Notification, limit: number): string {
  const where = describeWhere(notification.where);
  const full = where ? asciiLine(`${title} (${where})`, Number.POSITIVE_INFINITY) : '';
  return full && full.length <= limit ? full : asciiLine(title, limit);
}

/**
 * Where, in a few words: `prod-a (account 111122223333, eu-west-1)`, or `prod-a (...) and 2999 more`, counted from the
 * incident, never from a cut copy.
 */
export function whereShort(notification: Notification): string {
  const where = describeWhere(notification.where);
  const first = `${notification.clusters[0] ?? '(no cluster)'}${where ? ` (${where})` : ''}`;
  const count = clusterCount(notification);
  return count <= 1 ? first : `${first} and ${count - 1} more`;
}

/**
 * The kinds of paging-topic notification an SMS subscriber takes: the page and its resolve, not every update and
 * reminder of a fleet incident (infra/notification-topics.ts filters on the `kind` attribute).
 */
export const SMS_KINDS: readonly Notification['kind'][] = ['page', 'resolve'];

/**
 * One line of at most 140 characters (one SMS): kind, cause, since when, then where. A fleet page says how many
 * clusters before it names the first, so that a long name cut off at the end never takes the count with it.
 */
export function smsOf(notification: Notification): string {
  const count = clusterCount(notification);
  const at = describeWhere(notification.where);
  const first = `${notification.clusters[0] ?? '(no cluster)'}${at ? ` (${at})` : ''}`;
  const where = count <= 1 ? first : `${count} clusters, first ${first}`;
  const since = formatTime(notification.kind === 'resolve' ? notification.at : notification.openedAt);
  const when = notification.kind === 'resolve' ? `at ${since}` : `since ${since}`;
  return asciiLine(
    `${KIND_TAG[notification.kind]} ${notification.rule} ${when} on ${where}`,
    PROTOCOL_LIMITS.sms.message.max,
  );
}

/** Where the clusters a cut copy does not list are named. */
export type FullListAt = string;

/** In the email of the notification: what a vendor's or a chat message points to for the rest. */
export const IN_THE_EMAIL: FullListAt = 'the email of this notification';

/** A list's first `keep` entries, and a line that says how many it leaves out and where they are. */
function listed(entries: readonly string[], keep: number, total: number, what: string, fullListAt: FullListAt) {
  const shown = entries.slice(0, keep);
  const left = total - shown.length;
  return left > 0 ? [...shown, `... ${left} more ${what} not listed here (full list: ${fullListAt})`] : shown;
}

/**
 * The email, also the Opsgenie description and note. The first screen is what on-call acts on: what, since when,
 * where, the cause, the evidence, what to do, the runbook and the graph; the lists (clusters, incident ids, causal
 * chains) follow. Within `limit` characters, the lists shorten first, evidence with them; what to do and the links
 * stay. Counts come from the incident (clusterCount), so a copy cut to fit never says fewer clusters than there are.
 */
export function emailOf(
  notification: Notification,
  limit = Number.POSITIVE_INFINITY,
  fullListAt = FLEET_TABLE,
): string {
  const render = (keep: number) => emailLines(notification, keep, fullListAt).join('\n');
  const most = Math.max(
    notification.clusters.length,
    evidenceLines(notification).length,
    notification.incidents.length,
  );
  const fitted = largestFitting(render, (text) => text.length <= limit, { least: 0, most });
  return fitted ?? cutText(render(0), limit);
}

/** Where every cluster of a fleet incident is named when the SNS message itself was cut: its incidents in the table. */
const FLEET_TABLE: FullListAt = 'the incident table, one incident per cluster of the fleet incident';

function emailLines(notification: Notification, keep: number, fullListAt: FullListAt): string[] {
  const total = clusterCount(notification);
  const { kind } = notification;
  const opened = formatMinutes(Date.parse(notification.at) - Date.parse(notification.openedAt));
  const lines = [
    notification.title,
    '',
    kind === 'resolve'
      ? `${KIND_TAG[kind]} (${notification.severity}) at ${formatTime(notification.at)}, after ${opened} open (since ${formatTime(notification.openedAt)})`
      : `${KIND_TAG[kind]} (${notification.severity}) at ${formatTime(notification.at)}, firing since ${formatTime(notification.openedAt)} (${opened})`,
    `Where: ${whereShort(notification)}`,
    `Cause: ${notification.rule}: ${notification.summary}`,
  ];
  if (notification.changes.length > 0) lines.push('', 'What changed:', ...notification.changes.map((c) => `  - ${c}`));
  if (kind !== 'resolve') {
    const evidence = evidenceLines(notification);
    if (evidence.length > 0) {
      lines.push(
        '',
        'Evidence:',
        ...listed(evidence, keep, evidence.length, 'lines of evidence', fullListAt).map((e) => `  - ${e}`),
      );
    }
    lines.push('', 'What to do:');
    for (const { line, commands } of hintBlocks(notification)) {
      lines.push(`  - ${line}`, ...commands.map((command) => `        ${command}`));
    }
  }
  lines.push('', `Runbook: ${notification.runbook}`);
  if (notification.graph) lines.push(`Graph of the evidence: ${notification.graph}`);
  if (notification.causalChain.length > 0) {
    const chains = notification.causalChain.map((chain) => chain.join(' -> '));
    lines.push(
      '',
      'Causal chain:',
      ...listed(chains, keep, chains.length, 'causal chains', fullListAt).map((c) => `  ${c}`),
    );
  }
  if (total > 1) {
    lines.push(
      '',
      `Clusters (${total}):`,
      ...listed(notification.clusters, keep, total, 'clusters', fullListAt).map((c) => `  ${c}`),
    );
  }
  lines.push('', `Incident ids: ${listed(notification.incidents, keep, total, 'incidents', fullListAt).join(', ')}`);
  return lines;
}

/** Text as Slack shows it literally: `&`, `<` and `>` escaped (protocol-limits.ts). */
export function slackText(text: string): string {
  return text.replace(/[&<>]/g, (c) => SLACK_ESCAPES[c] ?? c);
}

/** A link Slack renders as a link: `<url|text>`, the URL's own `<`, `>` and `|` percent-encoded. */
function slackLink(href: string, text: string): string {
  const url = href.replace(/[<>|]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `<${url}|${slackText(text)}>`;
}

/** On-call's first screen in chat shows this many hints; the email and the runbook have the rest. */
const CHAT_HINTS = 3;

function chatHint({ line, commands }: HintBlock): string {
  const text = [slackText(line), ...commands.map((command) => `\`${slackText(command)}\``)].join('\n');
  return cutText(text, PROTOCOL_LIMITS.chatbot.nextStep.max);
}

function chatLink(href: string, text: string): string {
  const link = slackLink(href, text);
  return link.length <= PROTOCOL_LIMITS.chatbot.nextStep.max
    ? link
    : `${text}: too long for a chat message, in the email`;
}

/**
 * AWS Chatbot custom-notification JSON, so a Slack or Teams channel behind Chatbot shows it as is
 * (https://docs.aws.amazon.com/chatbot/latest/adminguide/custom-notifs.html), within the limits of protocol-limits.ts:
 * text escaped for Slack, links as links, the first three hints then the runbook and the graph as next steps, and
 * every notification of one fleet incident in one thread (its `group`).
 */
export function chatbotOf(notification: Notification): object {
  const { chatbot } = PROTOCOL_LIMITS;
  const hints = notification.kind === 'resolve' ? [] : hintBlocks(notification).slice(0, CHAT_HINTS).map(chatHint);
  const links = [
    ...(/^https?:\/\//.test(notification.runbook)
      ? [chatLink(notification.runbook, 'Runbook')]
      : [`Runbook: ${slackText(notification.runbook)}`]),
    ...(notification.graph ? [chatLink(notification.graph, 'Graph of the evidence')] : []),
  ];
  const total = clusterCount(notification);
  const evidence = notification.kind === 'resolve' ? [] : evidenceLines(notification);
  const description = (keep: number) =>
    [
      slackText(notification.summary),
      `*Where:* ${slackText(whereShort(notification))}`,
      ...notification.changes.map((c) => `*Change:* ${slackText(c)}`),
      ...listed(evidence, keep, evidence.length, 'lines of evidence', IN_THE_EMAIL).map((e) => `- ${slackText(e)}`),
      ...(total > 1
        ? [
            `*Clusters (${total}):* ${slackText(listed(notification.clusters, keep, total, 'clusters', IN_THE_EMAIL).join(', '))}`,
          ]
        : []),
    ].join('\n');
  const most = Math.max(notification.clusters.length, evidence.length);
  const fits = (text: string) => text.length <= chatbot.description.max;
  return {
    version: '1.0',
    source: 'custom',
    id: notification.id,
    content: {
      textType: 'client-markdown',
      title: cutText(
        slackText(
          withWhere(`${KIND_TAG[notification.kind]}: ${titleAfterTag(notification)}`, notification, chatbot.title.max),
        ),
        chatbot.title.max,
      ),
      description:
        largestFitting(description, fits, { least: 0, most }) ?? cutText(description(0), chatbot.description.max),
      nextSteps: [...hints, ...links].slice(-chatbot.nextSteps.max),
      keywords: [notification.severity, notification.kind, notification.rule, ...notification.clusters.slice(0, 5)],
    },
    metadata: {
      threadId: notification.group ?? notification.incidents[0] ?? notification.id,
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
  const cut = listed.length < notification.clusters.length || isTestPage(notification);
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

/**
 * One body per protocol. The JSON is `default` (what SQS, Lambda and any protocol not named get), so that SNS carries
 * it once (snsMessage); the email, the SMS and the Chatbot message are text of their own.
 */
function bodiesOf({ shown, omitted }: Cut): MessageBodies {
  const json = JSON.stringify(omitted ? { ...shown, omitted } : shown);
  return {
    default: json,
    email: emailOf(shown),
    sms: smsOf(shown),
    https: JSON.stringify(chatbotOf(shown)),
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
      clustersTotal: total,
      incidents: notification.incidents.slice(0, named),
      evidence: notification.evidence.filter((e) => withEvidence.has(e.cluster)),
      changes: [...notification.changes, note],
    },
    omitted: { clusters: total - named, evidenceOf: named - proven, of: total },
    note,
  };
}

/** What a notification too large even without its evidence keeps of what changed: lines, and characters of each. */
const BARE_CHANGES = 20;
const BARE_CHANGE_CHARS = 1_000;

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
  // Evidence and hints of one cluster alone exceed the limit, or what changed lists a fleet (a resolve of 10,000
  // clusters names each that recovered): keep the headline, the runbook and the start of each change, never large.
  const changes = notification.changes
    .slice(0, BARE_CHANGES)
    .map((change) => (change.length > BARE_CHANGE_CHARS ? `${change.slice(0, BARE_CHANGE_CHARS)}...` : change));
  const note =
    changes.join() === notification.changes.join()
      ? 'truncated to fit 256 KiB: evidence and hints left out'
      : 'truncated to fit 256 KiB: evidence, hints and the rest of what changed left out';
  const bare = { ...notification, evidence: [], hints: [], changes: [...changes, note] };
  return { ...render(cutTo(bare, 1, 1)), truncated: note };
}
