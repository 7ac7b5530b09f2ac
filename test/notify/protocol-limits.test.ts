import fc from 'fast-check';
import {
  detailsCharacters,
  opsgenieAlert,
  opsgenieNote,
  pagerDutyEvent,
} from '../../shared/delivery/vendor-messages.ts';
import type { Notification, NotificationKind } from '../../shared/engine/notification.ts';
import { publishBytes } from '../../shared/notify/fit-message.ts';
import { chatbotOf, renderMessage, slackText } from '../../shared/notify/message-bodies.ts';
import { PROTOCOL_LIMITS } from '../../shared/notify/protocol-limits.ts';
import { fleetPage } from './fleet-page.ts';

const { sns, sms, pagerduty, opsgenie, chatbot } = PROTOCOL_LIMITS;
const bytes = (text: string) => Buffer.byteLength(text);
const printableAscii = /^[\x20-\x7e]*$/;

/** A fleet of `count` clusters whose names are `length` characters long (EKS allows 1 to 100), all different. */
function fleet(count: number, length: number, kind: NotificationKind): Notification {
  const nameOf = (i: number) => {
    const id = `c${i.toString(36)}`;
    return id.length >= length ? id : `${id}-`.padEnd(length, 'n');
  };
  const page = fleetPage(count, nameOf);
  const title =
    kind === 'resolve' ? `Resolved: ${page.title}` : kind === 'update' ? `Update: ${page.title}` : page.title;
  return { ...page, kind, title, group: `${page.clusters[0]}/webhook-blackhole/2026-11-20T10:00:00Z` };
}

/** What the delivery function reads from its queue: the `default` body of the SNS message, cut or not. */
function delivered(notification: Notification): Notification {
  return JSON.parse(renderMessage(notification).bodies.default) as Notification;
}

function checkSns(notification: Notification, count: number): void {
  const rendered = renderMessage(notification);
  expect(publishBytes(rendered)).toBeLessThanOrEqual(sns.message.max);
  expect(rendered.subject.length).toBeLessThanOrEqual(sns.subject.max);
  expect(rendered.subject).toMatch(printableAscii);
  expect(rendered.subject).not.toMatch(/\[(UPDATE|RESOLVED)\] (Update|Resolved):/);
  expect(bytes(rendered.bodies.sms)).toBeLessThanOrEqual(sms.message.max);
  expect(rendered.bodies.sms).toMatch(printableAscii);
  if (count > 1) {
    // Counted from the incident, never from the cut copy.
    expect(rendered.bodies.sms).toContain(`${count} clusters`);
    expect(rendered.bodies.email).toContain(`Clusters (${count}):`);
    expect(rendered.bodies.email).toContain(`and ${count - 1} more`);
  }
  const chat = JSON.parse(rendered.bodies.https);
  expect(chat.content.title.length).toBeLessThanOrEqual(chatbot.title.max);
  expect(chat.content.description.length).toBeLessThanOrEqual(chatbot.description.max);
  expect(chat.content.nextSteps.length).toBeLessThanOrEqual(chatbot.nextSteps.max);
  for (const step of chat.content.nextSteps) expect(step.length).toBeLessThanOrEqual(chatbot.nextStep.max);
  expect(chat.content.nextSteps.some((step: string) => step.includes('|Runbook>'))).toBe(true);
  expect(chat.metadata.threadId).toBe(notification.group);
}

function checkVendors(notification: Notification, count: number): void {
  const received = delivered(notification);
  if (notification.kind !== 'resolve') {
    const event = pagerDutyEvent(received, 'trigger');
    expect(bytes(JSON.stringify(event))).toBeLessThanOrEqual(pagerduty.event.max);
    expect(event.payload?.summary.length).toBeLessThanOrEqual(pagerduty.summary.max);
    expect(event.dedup_key.length).toBeLessThanOrEqual(pagerduty.dedupKey.max);
    expect(event.payload?.custom_details.clusterCount).toBe(String(count));
  }
  const alert = opsgenieAlert(received);
  expect(alert.message.length).toBeLessThanOrEqual(opsgenie.message.max);
  expect(alert.alias.length).toBeLessThanOrEqual(opsgenie.alias.max);
  expect(alert.entity.length).toBeLessThanOrEqual(opsgenie.entity.max);
  expect(alert.description.length).toBeLessThanOrEqual(opsgenie.description.max);
  expect(detailsCharacters(alert.details)).toBeLessThanOrEqual(opsgenie.details.max);
  expect(alert.tags.length).toBeLessThanOrEqual(opsgenie.tags.max);
  for (const tag of alert.tags) expect(tag.length).toBeLessThanOrEqual(opsgenie.tag.max);
  expect(alert.details.clusterCount).toBe(String(count));
  // Cut by structure: the lists shorten, what to do and the runbook stay.
  if (notification.kind !== 'resolve') expect(alert.description).toContain('What to do:');
  expect(alert.description).toContain(`Runbook: ${notification.runbook}`);
  expect(opsgenieNote(received).note.length).toBeLessThanOrEqual(opsgenie.note.max);
}

describe('every renderer holds every documented limit', () => {
  const fleets = fc.record({
    count: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 60 }), fc.integer({ min: 61, max: 10_000 })),
    length: fc.oneof(fc.constant(100), fc.integer({ min: 1, max: 100 })),
    kind: fc.constantFrom<NotificationKind>('page', 'update', 'resolve'),
  });

  it('on SNS (message, subject, SMS, Chatbot) for fleets of 1 to 10,000 clusters with names up to 100 characters', () => {
    fc.assert(
      fc.property(fleets, ({ count, length, kind }) => checkSns(fleet(count, length, kind), count)),
      { numRuns: 12, examples: [[{ count: 10_000, length: 100, kind: 'page' }]] },
    );
  });

  it('on PagerDuty and Opsgenie, from what the delivery function receives, for the same fleets', () => {
    fc.assert(
      fc.property(fleets, ({ count, length, kind }) => checkVendors(fleet(count, length, kind), count)),
      { numRuns: 12, examples: [[{ count: 10_000, length: 100, kind: 'page' }]] },
    );
  });
});

describe('Chatbot text as Slack reads it', () => {
  it('escapes <, > and & in text, so that a placeholder or an ampersand is not read as a link or an entity', () => {
    const page = {
      ...fleetPage(1),
      hints: [
        { text: 'Drain nodes in <group> & <region>', source: 'docs/runbooks/x.md', commands: ['aws x --r <region>'] },
      ],
    };

    const chat = chatbotOf(page) as { content: { nextSteps: string[] } };

    expect(chat.content.nextSteps[0]).toBe(
      'Drain nodes in &lt;group&gt; &amp; &lt;region&gt; (docs/runbooks/x.md)\n`aws x --r &lt;region&gt;`',
    );
    expect(slackText('a < b')).toBe('a &lt; b');
  });

  it('threads every notification of a fleet incident under the fleet incident, whichever cluster is listed first', () => {
    const page = { ...fleetPage(3), group: 'fleet/1' };
    const update = {
      ...page,
      kind: 'update' as const,
      clusters: page.clusters.slice(1),
      incidents: page.incidents.slice(1),
    };

    const threads = [page, update].map((n) => (chatbotOf(n) as { metadata: { threadId: string } }).metadata.threadId);

    expect(threads).toEqual(['fleet/1', 'fleet/1']);
  });
});
