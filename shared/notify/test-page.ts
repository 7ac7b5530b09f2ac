import type { Notification } from '../engine/notification.ts';
import { isoSeconds } from '../time.ts';

/** The rule a test page names: no configured rule has it. */
export const TEST_PAGE_RULE = 'sentinel-test-page';

/**
 * Whether a notification is a test page or its resolve. It is about no cluster and so about every one: it reaches
 * every subscriber and integration, cluster-filtered ones included (its `cluster` attribute is the marker that every
 * cluster filter allows, message-bodies.ts; paging-integrations.ts sends it to every integration).
 */
export function isTestPage(notification: Notification): boolean {
  return notification.rule === TEST_PAGE_RULE;
}

/**
 * A page that says plainly that it is a test, to check that the whole path reaches on-call. It carries an incident
 * of its own, so that PagerDuty and Opsgenie open it under one key and `testResolve` closes it again.
 */
export function testPage(at: number, deployment: string): Notification {
  const when = isoSeconds(at);
  const incident = `${TEST_PAGE_RULE}/${deployment}/${when}`;
  return {
    id: `${when}/page/${TEST_PAGE_RULE}/${deployment}`,
    at: when,
    kind: 'page',
    reason: 'opened',
    severity: 'critical',
    rule: TEST_PAGE_RULE,
    title: `TEST - k8s-incident-sentinel test page from ${deployment}, no action needed`,
    summary:
      'This is a test page sent with `sentinel test-page`. If you received it, the paging path works from the SNS topic to you. Nothing is wrong with any cluster. A resolve follows.',
    clusters: ['(test)'],
    incidents: [incident],
    group: incident,
    openedAt: when,
    symptoms: [],
    changes: [],
    causalChain: [],
    evidence: [],
    hints: [{ text: 'Nothing to do: the test incident resolves by itself.', source: 'sentinel test-page' }],
    runbook: 'docs/deploy.md',
  };
}

/** The resolve of a test page: the same incident, closed. */
export function testResolve(page: Notification, at: number): Notification {
  const when = isoSeconds(at);
  return {
    ...page,
    id: `${when}/resolve/${TEST_PAGE_RULE}/${page.id}`,
    at: when,
    kind: 'resolve',
    reason: 'resolved',
    title: `Resolved: ${page.title}`,
    hints: [],
  };
}
