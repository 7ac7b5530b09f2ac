import type { Notification } from '../engine/notification.ts';
import { isoSeconds } from '../time.ts';

/**
 * A page that says plainly that it is a test, to check that the whole path reaches on-call. It carries an incident
 * of its own, so that PagerDuty and Opsgenie open it under one key and `testResolve` closes it again.
 */
export function testPage(at: number, deployment: string): Notification {
  const when = isoSeconds(at);
  const incident = `sentinel-test-page/${deployment}/${when}`;
  return {
    id: `${when}/page/sentinel-test-page/${deployment}`,
    at: when,
    kind: 'page',
    reason: 'opened',
    severity: 'critical',
    rule: 'sentinel-test-page',
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
    id: `${when}/resolve/sentinel-test-page/${page.id}`,
    at: when,
    kind: 'resolve',
    reason: 'resolved',
    title: `Resolved: ${page.title}`,
    hints: [],
  };
}
