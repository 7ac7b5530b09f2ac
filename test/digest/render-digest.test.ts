import type { Digest } from '../../shared/digest/digest.ts';
import { renderDigest } from '../../shared/digest/render-digest.ts';
import type { NearMiss } from '../../shared/engine/near-miss.ts';
import { MESSAGE_LIMIT_BYTES, publishBytes } from '../../shared/notify/fit-message.ts';
import type { Activity } from '../../shared/pipeline/ports.ts';
import {
  digestOf,
  flowing,
  incidentOf,
  isoMinute,
  NO_ACTIVITY,
  openedWith,
  pollsBetween,
  WEEK,
  weekMinute,
  wideLines,
} from './digest-fixtures.ts';

const DAY_MINUTES = 24 * 60;
const WEEK_POLLS = pollsBetween(WEEK.from, WEEK.to);

describe('the digest of a week', () => {
  describe('when nothing happened', () => {
    const rendered = renderDigest(digestOf({ ...NO_ACTIVITY, polls: WEEK_POLLS }));

    it('says so in the subject', () => {
      expect(rendered.subject).toBe('Sentinel digest 2024-W19: quiet week, no pages (sentinel-test)');
    });

    it('says so in a short email that shows the pipeline ran', () => {
      const email = rendered.bodies.email;

      expect(email).toContain('A quiet week: no page, no ticket, no incident, and the pipeline ran (10,080 polls).');
      expect(email).toContain('Polls: 10,080 run of 10,080 expected');
      expect(email).not.toContain('THE WEEK AT A GLANCE');
      expect(email.split('\n').length).toBeLessThan(40);
    });
  });

  it('warns in the subject and the email when no poll was recorded', () => {
    const rendered = renderDigest(digestOf(NO_ACTIVITY));

    expect(rendered.subject).toBe('Sentinel digest 2024-W19: NO POLLS RECORDED, check the poller (sentinel-test)');
    expect(rendered.bodies.email).toContain('NO POLL WAS RECORDED');
  });

  describe('with an incident still open at the end of the week', () => {
    const resolvedPage = incidentOf({
      cluster: 'prod-a',
      rule: 'webhook-blackhole',
      severity: 'page',
      openedAt: isoMinute(60),
      resolvedAt: isoMinute(95),
    });
    const openTicket = incidentOf({ cluster: 'prod-b', rule: 'node-churn', openedAt: isoMinute(3 * DAY_MINUTES) });
    const activity: Activity = {
      incidents: [resolvedPage, openTicket],
      notifications: [openedWith(resolvedPage), openedWith(openTicket)],
      polls: WEEK_POLLS,
    };
    const digest = digestOf(activity);
    const email = renderDigest(digest).bodies.email;

    it('names the open incident in the subject', () => {
      expect(renderDigest(digest).subject).toBe(
        'Sentinel digest 2024-W19: 1 page, 1 ticket, 1 open incident (sentinel-test)',
      );
    });

    it('lists the open incident first, with how long it has been open', () => {
      expect(digest.incidents.map((i) => [i.rule, i.status, i.openForMs / 3_600_000])).toEqual([
        ['node-churn', 'open', 96],
        ['webhook-blackhole', 'resolved', 35 / 60],
      ]);
      expect(email).toMatch(/ {2}1\. OPEN ticket: Node replacements are elevated\n/);
      expect(email).toContain('still open at the end of the week, after 96 h');
      expect(email).toMatch(/ {2}2\. RESOLVED page: Admission webhook is black-holing API writes\n/);
      expect(email).toContain('resolved after 35 min');
    });

    it('counts pages, tickets and incidents per cluster against the week before', () => {
      const before = incidentOf({
        cluster: 'prod-a',
        rule: 'node-churn',
        openedAt: '2024-05-01T10:00:00Z',
        resolvedAt: '2024-05-01T12:00:00Z',
      });
      const compared = digestOf(activity, {
        previous: {
          incidents: [before],
          notifications: [openedWith(before)],
          polls: pollsBetween(WEEK.from - 7 * 86_400_000, WEEK.from),
        },
        clusters: ['prod-a', 'prod-b', 'prod-c'],
      });

      expect(compared.clusters.map((c) => [c.cluster, c.thisWeek, c.previousWeek])).toEqual([
        ['prod-a', { pages: 1, tickets: 0, incidents: 1 }, { pages: 0, tickets: 1, incidents: 1 }],
        ['prod-b', { pages: 0, tickets: 1, incidents: 1 }, { pages: 0, tickets: 0, incidents: 0 }],
        ['prod-c', { pages: 0, tickets: 0, incidents: 0 }, { pages: 0, tickets: 0, incidents: 0 }],
      ]);
      expect(renderDigest(compared).bodies.email).toContain('  prod-a       1 (0)          0 (1)          1 (1)');
    });
  });

  it('counts an incident merged into its late-identified cause as part of that cause', () => {
    const cause = incidentOf({
      cluster: 'prod-a',
      rule: 'webhook-blackhole',
      severity: 'page',
      openedAt: isoMinute(60),
      resolvedAt: isoMinute(160),
      symptoms: ['node-churn'],
    });
    const merged = incidentOf({
      cluster: 'prod-a',
      rule: 'node-churn',
      openedAt: isoMinute(58),
      resolvedAt: isoMinute(60),
      mergedInto: cause.id,
    });
    const mergedNote = openedWith(merged, {
      notification: {
        ...openedWith(merged).notification,
        id: 'merge',
        kind: 'resolve',
        reason: 'merged',
        at: isoMinute(60),
      },
    });

    const digest = digestOf({
      incidents: [cause, merged],
      notifications: [openedWith(cause), openedWith(merged), mergedNote],
      polls: WEEK_POLLS,
    });

    expect([
      digest.headline.incidents,
      digest.incidents[0]?.notifications,
      digest.clusters[0]?.thisWeek.incidents,
    ]).toEqual([1, 3, 1]);
    expect(digest.noise.map((n) => [n.rule, n.shortLived])).toEqual([
      ['node-churn', 0],
      ['webhook-blackhole', 0],
    ]);
  });

  it('estimates the cost from metrics requested and poll durations, and states the prices it used', () => {
    const polls = pollsBetween(WEEK.from, WEEK.to, { metricsRequested: 17, durationMs: 800 });

    const digest = digestOf({ ...NO_ACTIVITY, polls });

    // 171,360 metrics at $0.01 per 1,000; 8,064 s at 0.5 GB and $0.0000133334 per GB-s, plus 10,080 requests.
    expect(digest.cost.cloudWatchUsd).toBeCloseTo(1.7136, 6);
    expect(digest.cost.lambdaGbSeconds).toBeCloseTo(4032, 6);
    expect(digest.cost.lambdaUsd).toBeCloseTo(4032 * 0.0000133334 + 0.002016, 9);
    expect(renderDigest(digest).bodies.email).toContain(
      'CloudWatch GetMetricData: $1.71 for 171,360 metrics at $0.01 per 1,000.',
    );
    expect(flowing(renderDigest(digest).bodies.email)).toContain(
      'Lambda poller (512 MB, arm64): $0.06 for 4032 GB-s at $0.0000133334 per GB-s and 10,080 requests at $0.20 per million.',
    );
  });

  it('counts late and failed polls, and the longest gap between polls', () => {
    const polls = [
      ...pollsBetween(WEEK.from, weekMinute(100)),
      ...pollsBetween(weekMinute(117), weekMinute(120), { lateMs: 95_000 }),
      ...pollsBetween(weekMinute(120), weekMinute(121), { error: 'ThrottlingException: Rate exceeded' }),
      ...pollsBetween(weekMinute(121), WEEK.to),
    ];

    const health = digestOf({ ...NO_ACTIVITY, polls }).pipeline;

    expect([health.polls, health.late, health.failed, health.maxLateMs, health.longestGap, health.degraded]).toEqual([
      10_063,
      3,
      1,
      95_000,
      { from: isoMinute(99), to: isoMinute(117), ms: 18 * 60_000 },
      undefined,
    ]);
  });

  it('says how many near misses the poll records left out', () => {
    const polls = [
      ...pollsBetween(WEEK.from, weekMinute(10)),
      ...pollsBetween(weekMinute(10), weekMinute(13), { nearMissesOmitted: 1_200 }),
      ...pollsBetween(weekMinute(13), WEEK.to),
    ];

    const digest = digestOf({ ...NO_ACTIVITY, polls });

    expect(digest.nearMissesNotRecorded).toBe(3_600);
    expect(flowing(renderDigest(digest).bodies.email)).toContain(
      'Near misses not recorded: 3,600. Each poll records the 100 closest to firing',
    );
  });

  it('never calls a week quiet when the poller stopped on its second day', () => {
    const digest = digestOf({ ...NO_ACTIVITY, polls: pollsBetween(WEEK.from, weekMinute(2 * 1440)) });

    expect([digest.pipeline.longestGap?.to, digest.pipeline.degraded, renderDigest(digest).subject]).toEqual([
      new Date(WEEK.to).toISOString().replace('.000Z', 'Z'),
      "only 29% of the week's polls ran",
      expect.stringMatching(/^Sentinel digest \S+: PIPELINE DEGRADED \(only 29% of the week's polls ran\), 0 pages/),
    ]);
  });

  it('never calls a week quiet when CloudWatch could not be read', () => {
    const digest = digestOf({
      ...NO_ACTIVITY,
      polls: pollsBetween(WEEK.from, WEEK.to, { polled: 2, unreadableClusters: 2 }),
    });

    expect([digest.pipeline.degraded, renderDigest(digest).bodies.email]).toEqual([
      'CloudWatch could not be read for 100% of cluster reads',
      expect.not.stringContaining('A quiet week'),
    ]);
  });

  it('says how many polls ran out of time saving a step, and says nothing of it in a week without one', () => {
    const polls = pollsBetween(WEEK.from, WEEK.to);
    const unfinishedStep = { step: WEEK.from, saved: 4_000, changed: 10_000 };
    const outOfTime = polls.map((poll, i) => (i < 2 ? { ...poll, unfinishedStep } : poll));

    const digest = digestOf({ ...NO_ACTIVITY, polls: outOfTime });
    const quiet = digestOf({ ...NO_ACTIVITY, polls });

    expect([digest.pipeline.outOfTime, quiet.pipeline.outOfTime]).toEqual([2, undefined]);
    expect(flowing(renderDigest(digest).bodies.email)).toContain(
      "2 polls ran out of time saving a step's incidents and left the rest to the next poll, which saved them first",
    );
    expect(renderDigest(quiet).bodies.email).not.toContain('ran out of time');
  });

  it('lists the notifications that needed retries, and those never delivered', () => {
    const incident = incidentOf({ cluster: 'prod-a', rule: 'node-churn', openedAt: isoMinute(10) });
    const retried = openedWith(incident, { attempts: 3, lastError: 'ThrottledException: Rate exceeded' });
    const failed = {
      ...openedWith(incidentOf({ cluster: 'prod-b', rule: 'node-churn', openedAt: isoMinute(20) })),
      status: 'pending' as const,
      attempts: 1,
      lastError: 'InternalError',
    };

    const digest = digestOf({ incidents: [incident], notifications: [retried, failed], polls: WEEK_POLLS });

    expect(digest.pipeline.retried.map((r) => [r.attempts, r.delivered, r.lastError])).toEqual([
      [3, true, 'ThrottledException: Rate exceeded'],
      [1, false, 'InternalError'],
    ]);
    expect(renderDigest(digest).bodies.email).toContain('Notifications: 1 sent, 1 not delivered, 2 needed retries.');
  });

  describe('of a week too large for one message', () => {
    const clusters = Array.from({ length: 300 }, (_, i) => `prod-${'x'.repeat(60)}-${i}`);
    const incidents = Array.from({ length: 4000 }, (_, i) =>
      incidentOf({
        cluster: clusters[i % clusters.length] as string,
        rule: 'node-churn',
        openedAt: isoMinute(i * 2),
        resolvedAt: isoMinute(i * 2 + 75),
      }),
    );
    const nearMiss = (cluster: string): NearMiss => ({
      cluster,
      rule: 'webhook-latency-tax',
      distance: 0.1,
      closest: {
        what: 'webhook.p99',
        over: '90 of last 120 samples, needs 100',
        observed: 0.3,
        op: '>=',
        threshold: 0.1,
        unit: 'seconds',
        passed: false,
      },
    });
    const activity: Activity = {
      incidents,
      notifications: incidents.map((i) => openedWith(i)),
      polls: pollsBetween(WEEK.from, WEEK.to).map((poll, i) => ({
        ...poll,
        nearMisses: [nearMiss(clusters[i % 300] as string)],
      })),
    };
    let digest: Digest;
    let rendered: ReturnType<typeof renderDigest>;

    beforeAll(() => {
      digest = digestOf(activity);
      rendered = renderDigest(digest);
    });

    it('stays under the SNS message limit, its subject and attributes included', () => {
      expect(publishBytes(rendered)).toBeLessThanOrEqual(MESSAGE_LIMIT_BYTES);
      expect(publishBytes(rendered)).toBeGreaterThan(MESSAGE_LIMIT_BYTES - 4096);
    });

    it('says in the email how many incidents it left out', () => {
      const left = JSON.parse(rendered.bodies.sqs).omitted.incidents as number;

      expect(left).toBeGreaterThan(0);
      expect(rendered.bodies.email).toContain(
        `... ${left.toLocaleString('en-US')} more incidents not listed, to fit one SNS message.`,
      );
      expect(rendered.bodies.email).toContain('This digest was shortened to fit one SNS message (256 KiB)');
      expect(rendered.truncated).toMatch(new RegExp(`^shortened to fit 256 KiB: .*${left} incidents`));
    });

    it('keeps the totals of the whole week though its lists are cut', () => {
      const sent = JSON.parse(rendered.bodies.sqs) as Digest;

      expect([
        sent.headline.tickets,
        sent.headline.incidents,
        sent.incidents.length + (sent.omitted?.incidents ?? 0),
      ]).toEqual([4000, 4000, 4000]);
    });

    it('keeps its subject to 100 ASCII characters and its email to 100 columns', () => {
      expect(rendered.subject).toMatch(/^[\x20-\x7e]{1,100}$/);
      expect(wideLines(rendered.bodies.email)).toEqual([]);
      expect(wideLines(rendered.bodies.default)).toEqual([]);
    });
  });
});
