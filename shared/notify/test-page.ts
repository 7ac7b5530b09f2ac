import type { Notification } from '../engine/notification.ts';
import { isoSeconds } from '../time.ts';

/** A page that says plainly that it is a test, to check that the whole path reaches on-call. */
export function testPage(at: number, deployment: string): Notification {
  const when = isoSeconds(at);
  return {
    id: `${when}/page/sentinel-test-page/${deployment}`,
    at: when,
    kind: 'page',
    reason: 'opened',
    severity: 'critical',
    rule: 'sentinel-test-page',
    title: `TEST - k8s-incident-sentinel test page from ${deployment}, no action needed`,
    summary:
      'This is a test page sent with `sentinel test-page`. If you received it, the paging path works from the SNS topic to you. Nothing is wrong with any cluster.',
    clusters: ['(test)'],
    incidents: [],
    openedAt: when,
    symptoms: [],
    changes: [],
    causalChain: [],
    evidence: [],
    hints: [{ text: 'Acknowledge and close this test in your paging tool.', source: 'sentinel test-page' }],
    runbook: 'docs/deploy.md',
  };
}
