/**
 * How large each protocol's body of a page is, beside the limit it must stay under (shared/notify/protocol-limits.ts):
 * the first page of a real replay (opa-webhook-outage, one cluster, with the example configuration, so that its first
 * screen names the account and Region as a deployed page does) and the largest fleet page, the same page grouping
 * 10,000 clusters with names of 100 characters, the EKS maximum. `npx tsx bench/notification-sizes.ts` prints it alone.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseConfigText } from '../shared/config/deployment-config.ts';
import { detailsCharacters, opsgenieAlert, pagerDutyEvent } from '../shared/delivery/vendor-messages.ts';
import type { Notification } from '../shared/engine/notification.ts';
import { publishBytes } from '../shared/notify/fit-message.ts';
import { renderMessage } from '../shared/notify/message-bodies.ts';
import { PROTOCOL_LIMITS } from '../shared/notify/protocol-limits.ts';
import { replayScenario } from '../shared/scenario/replay.ts';
import { parseScenario } from '../shared/scenario/scenario.ts';

export interface NotificationSizeRow {
  readonly protocol: string;
  readonly what: string;
  readonly unit: 'characters' | 'bytes';
  readonly limit: number;
  readonly onePage: number;
  readonly largestFleet: number;
}

export const LARGEST_FLEET = 10_000;
const SCENARIO = 'opa-webhook-outage';

/** The first page of the replayed outage: what on-call's first screen is made from. */
export async function replayedPage(): Promise<Notification> {
  const file = fileURLToPath(new URL(`../scenarios/${SCENARIO}.json`, import.meta.url));
  const scenario = parseScenario(JSON.parse(readFileSync(file, 'utf8')), `scenarios/${SCENARIO}.json`);
  const configFile = fileURLToPath(new URL('../config/sentinel.example.json', import.meta.url));
  const { config, ruleSet } = parseConfigText(readFileSync(configFile, 'utf8'), 'config/sentinel.example.json');
  const replay = await replayScenario(scenario, { ruleSet, config });
  const page = replay.notifications.find((n) => n.kind === 'page');
  if (!page) throw new Error(`bench: ${SCENARIO} no longer pages`);
  return page;
}

/** The page grouping `count` clusters with 100-character names, each with the one cluster's evidence. */
function fleetOf(page: Notification, count: number): Notification {
  const clusters = Array.from({ length: count }, (_, i) => `prod-${String(i).padStart(5, '0')}-`.padEnd(100, 'x'));
  const incidents = clusters.map((cluster) => `${cluster}/${page.rule}/${page.openedAt}`);
  return {
    ...page,
    title: `${page.title.replace(/ on .*$/, '')} on ${clusters[0]} and ${count - 1} more`,
    clusters,
    incidents,
    evidence: clusters.flatMap((cluster, i) =>
      page.evidence.map((e) => ({ ...e, cluster, incident: incidents[i] ?? e.incident })),
    ),
  };
}

function sizes(notification: Notification) {
  const rendered = renderMessage(notification);
  const delivered = JSON.parse(rendered.bodies.default) as Notification;
  const chat = JSON.parse(rendered.bodies.https) as { content: { description: string } };
  const alert = opsgenieAlert(delivered);
  const event = pagerDutyEvent(delivered, 'trigger');
  return [
    publishBytes(rendered),
    rendered.subject.length,
    Buffer.byteLength(rendered.bodies.sms),
    chat.content.description.length,
    event.payload?.summary.length ?? 0,
    Buffer.byteLength(JSON.stringify(event)),
    alert.message.length,
    alert.description.length,
    detailsCharacters(alert.details),
  ];
}

export async function measureNotificationSizes(): Promise<NotificationSizeRow[]> {
  const page = await replayedPage();
  const one = sizes(page);
  const fleet = sizes(fleetOf(page, LARGEST_FLEET));
  const { sns, sms, chatbot, pagerduty, opsgenie } = PROTOCOL_LIMITS;
  const rows = [
    ['SNS', 'whole Publish (message, subject, attributes)', sns.message],
    ['SNS', 'subject', sns.subject],
    ['SMS', 'message', sms.message],
    ['Chatbot', 'description', chatbot.description],
    ['PagerDuty', 'summary', pagerduty.summary],
    ['PagerDuty', 'event', pagerduty.event],
    ['Opsgenie / JSM', 'message', opsgenie.message],
    ['Opsgenie / JSM', 'description', opsgenie.description],
    ['Opsgenie / JSM', 'details, in total', opsgenie.details],
  ] as const;
  return rows.map(([protocol, what, limit], i) => ({
    protocol,
    what,
    unit: limit.unit === 'bytes' ? 'bytes' : 'characters',
    limit: limit.max,
    onePage: one[i] ?? 0,
    largestFleet: fleet[i] ?? 0,
  }));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const row of await measureNotificationSizes()) {
    process.stdout.write(
      `${row.protocol.padEnd(15)} ${row.what.padEnd(45)} ${String(row.onePage).padStart(8)} ${String(row.largestFleet).padStart(8)} / ${row.limit} ${row.unit}\n`,
    );
  }
}
