import {
  incidentKey,
  notificationLinks,
  opsgenieAlert,
  pagerDutyEvent,
} from '../../shared/delivery/vendor-messages.ts';
import { PROTOCOL_LIMITS } from '../../shared/notify/protocol-limits.ts';
import { notificationAt } from '../support/engine-fixtures.ts';

const page = notificationAt({
  at: '2024-05-06T08:00:00Z',
  kind: 'page',
  rule: 'webhook-blackhole',
  group: 'dev-a/webhook-blackhole/2024-05-06T08:00:00Z',
  runbook: 'https://runbooks.example.com/webhook-blackhole.md',
});

describe('what PagerDuty and Opsgenie are sent', () => {
  it('keys every notification of a fleet incident on the fleet incident, whichever clusters it lists', () => {
    const joined = { ...page, kind: 'update' as const, incidents: ['dev-d/webhook-blackhole/2024-05-06T08:20:00Z'] };

    expect(incidentKey(joined)).toBe(page.group);
    expect(pagerDutyEvent(joined, 'trigger').dedup_key).toBe(page.group);
    expect(opsgenieAlert(joined).alias).toBe(page.group);
  });

  it('falls back to the first incident for a notification stored before the fleet id was recorded', () => {
    const { group: _, ...older } = page;

    expect(incidentKey(older)).toBe(page.incidents[0]);
  });

  it('shortens a key over 255 characters to distinct keys within the limit', () => {
    const long = (suffix: string) => ({ ...page, group: `${'c'.repeat(300)}/${suffix}` });

    const [a, b] = [incidentKey(long('a')), incidentKey(long('b'))];

    expect(a.length).toBeLessThanOrEqual(PROTOCOL_LIMITS.pagerduty.dedupKey.max);
    expect(a).not.toBe(b);
  });

  it('resolves by key alone, and triggers with a summary, source, severity and the runbook link', () => {
    const trigger = pagerDutyEvent(page, 'trigger');

    expect(pagerDutyEvent(page, 'resolve')).toEqual({ event_action: 'resolve', dedup_key: page.group });
    expect(trigger.payload).toMatchObject({ summary: page.title, source: 'dev-a', severity: 'critical' });
    expect(trigger.links).toEqual([{ href: page.runbook, text: 'Runbook' }]);
  });

  it('keeps the vendors’ field limits on a fleet page with long names', () => {
    const clusters = Array.from({ length: 3000 }, (_, i) => `${'prod-cluster-with-a-long-name-'.repeat(3)}${i}`);
    const big = { ...page, title: 'x'.repeat(2000), clusters, changes: ['y'.repeat(20_000)] };

    const alert = opsgenieAlert(big);

    const { pagerduty, opsgenie } = PROTOCOL_LIMITS;
    expect(pagerDutyEvent(big, 'trigger').payload?.summary.length).toBeLessThanOrEqual(pagerduty.summary.max);
    expect(alert.message.length).toBeLessThanOrEqual(opsgenie.message.max);
    expect(alert.description.length).toBeLessThanOrEqual(opsgenie.description.max);
    expect(alert.tags.every((tag) => tag.length <= opsgenie.tag.max)).toBe(true);
    const listed = alert.details.clusters?.split(' (+')[0]?.split(', ').length ?? 0;
    expect(alert.details.clusters).toContain(`(+${3000 - listed} more, full list: the email of this notification)`);
    expect(alert.details.clusterCount).toBe('3000');
  });

  it('links the evidence graph first, then the runbook', () => {
    const graph = 'https://console.aws.amazon.com/cloudwatch/home?region=eu-west-1#metricsV2:graph=x';

    expect(notificationLinks({ ...page, graph }).map((link) => link.text)).toEqual(['Graph', 'Runbook']);
    expect(pagerDutyEvent({ ...page, graph }, 'trigger').links?.[0]?.href).toBe(graph);
    expect(opsgenieAlert({ ...page, graph }).details.Graph).toBe(graph);
  });

  it('leaves out a runbook that is a relative path, which the tools cannot link', () => {
    expect(notificationLinks({ ...page, runbook: 'docs/runbooks/webhook-blackhole.md' })).toEqual([]);
  });
});
