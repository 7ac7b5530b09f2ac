import { deploymentConfigSchema } from '../../shared/config/deployment-config.ts';
import type { Digest } from '../../shared/digest/digest.ts';
import { renderDigest } from '../../shared/digest/render-digest.ts';
import { replayDigest } from '../../shared/digest/replay-digest.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import {
  defaultRuleSet,
  flagRule,
  replayShipped,
  ruleSetOf,
  scenarioJson,
  testRule,
} from '../support/engine-fixtures.ts';
import { flowing, MINUTE, wideLines } from './digest-fixtures.ts';

describe('the digest of the OPA webhook outage week', () => {
  let digest: Digest;
  let email: string;

  beforeAll(async () => {
    digest = replayDigest(await replayShipped('opa-webhook-outage'), { ruleSet: defaultRuleSet() });
    email = renderDigest(digest).bodies.email;
  });

  it('reports on the week the scenario ends in', () => {
    expect([digest.week.label, digest.week.firstDay, digest.week.lastDay]).toEqual([
      '2019-W10',
      '2019-03-04',
      '2019-03-10',
    ]);
  });

  it('counts one page and two incidents, both resolved, against one ticket the week before', () => {
    expect([digest.headline, digest.total.previousWeek]).toEqual([
      { pages: 1, tickets: 0, incidents: 2, openIncidents: 0, quiet: false, previousWeekRecorded: true },
      { pages: 0, tickets: 1, incidents: 1 },
    ]);
  });

  it('lists the page with its symptoms, its 95 minutes and its four notifications', () => {
    const blackhole = digest.incidents.find((i) => i.rule === 'webhook-blackhole');

    expect(blackhole).toMatchObject({
      status: 'resolved',
      clusters: ['dev-euw1'],
      openedAt: '2019-03-04T09:31:00Z',
      openForMs: 95 * MINUTE,
      notifications: 4,
      symptoms: expect.arrayContaining(['nodes-notready-at-scale', 'node-repair-storm']),
    });
    expect(email).toContain('Opened 2019-03-04 09:31, resolved after 1 h 35 min; 4 notifications this week.');
  });

  it('lists the latency-tax ticket, opened the week before, after the page', () => {
    expect(digest.incidents.map((i) => [i.rule, i.severity, i.openedBeforeWeek])).toEqual([
      ['webhook-blackhole', 'page', false],
      ['webhook-latency-tax', 'ticket', true],
    ]);
  });

  it('names the days-old latency-tax ticket as the latent risk that became the outage', () => {
    expect(digest.latentRisks).toEqual([
      expect.objectContaining({
        rule: 'webhook-latency-tax',
        clusters: ['dev-euw1'],
        precursorOf: ['webhook-blackhole'],
        pagedThisWeek: ['webhook-blackhole'],
        runbook: 'docs/runbooks/webhook-latency-tax.md',
      }),
    ]);
    expect(digest.latentRisks[0]?.openForMs).toBeGreaterThan(70 * 60 * MINUTE);
    expect(flowing(email)).toContain(
      'It is the warning sign of webhook-blackhole, and webhook-blackhole paged this week.',
    );
  });

  it('finds no rule to tune', () => {
    expect(digest.noise.map((n) => [n.rule, n.advice])).toEqual(
      [
        'apiserver-sustained-errors',
        'node-repair-storm',
        'nodes-notready-at-scale',
        'nodes-unreachable',
        'webhook-blackhole',
        'webhook-latency-tax',
      ].map((rule) => [rule, []]),
    );
  });

  it('shows the polls the replay ran, and says it requested no metrics because it is a replay', () => {
    expect([digest.pipeline.polls, digest.pipeline.metricsRequested, digest.cost.cloudWatchUsd]).toEqual([885, 0, 0]);
    expect(flowing(email)).toContain('The replay reads no CloudWatch metrics');
  });

  it('keeps every line of the email within 100 columns', () => {
    expect(wideLines(email)).toEqual([]);
  });
});

describe('the digest of the healthy noisy week', () => {
  let digest: Digest;

  beforeAll(async () => {
    digest = replayDigest(await replayShipped('healthy-noisy-week'), { ruleSet: defaultRuleSet() });
  });

  it('calls the week quiet in its subject', () => {
    expect(renderDigest(digest).subject).toBe(
      'Sentinel digest 2026-W46: quiet week, no pages (replay of healthy-noisy-week)',
    );
  });

  it('lists no incident and no rule to tune, and shows every minute was polled', () => {
    expect([digest.incidents, digest.noise, digest.pipeline.polls, digest.pipeline.longestGap]).toEqual([
      [],
      [],
      7 * 24 * 60,
      undefined,
    ]);
  });
});

describe('the digest of a noisy week', () => {
  /**
   * Ten hours from Monday 08:00: nodes stuck NotReady all along (a page, so the cluster is read every minute), and
   * after ten quiet minutes, 5xx blips every half hour and a webhook flapping twice an hour for eight hours.
   */
  const STEPS = 600;
  const QUIET = 10;
  const repeat = (segment: string, length: number, times: number) =>
    [`0*${QUIET}`, ...Array<string>(times).fill(segment), `0*${STEPS - QUIET - length * times}`].join(' ');
  const rules = ruleSetOf(
    testRule(
      'error-blips',
      { kind: 'sustained', of: 'apiserver.5xx', op: '>=', value: '$errors', m: 1, n: 2 },
      {
        severity: 'ticket',
        holdDown: '5m',
        params: { errors: { default: 1, unit: 'count', description: '5xx answers in a minute' } },
      },
    ),
    flagRule('flappy-webhook', 'webhook.rejections', { severity: 'ticket', holdDown: '10m' }),
    flagRule('stuck-nodes', 'nodes.notready', { holdDown: '15m' }),
    flagRule('quiet-throttling', 'apiserver.429'),
  );
  const scenario = parseScenario(
    scenarioJson({
      start: '2024-05-06T08:00:00Z',
      clusters: {
        'prod-a': {
          signals: {
            'apiserver.5xx': repeat('1 0*29', 30, 19),
            'webhook.rejections': repeat('1*3 0*4 1*3 0*4 1*3 0*43', 60, 8),
            'nodes.notready': `1*${STEPS}`,
            'apiserver.429': `0*${STEPS}`,
          },
        },
      },
    }),
    'noisy-week.json',
  );
  const config = deploymentConfigSchema.parse({ clusters: [{ name: 'prod-a' }], notifications: { renotify: '1h' } });
  let digest: Digest;

  beforeAll(async () => {
    const result = await replayScenario(scenario, { ruleSet: rules, config });
    digest = replayDigest(result, { ruleSet: rules, config });
  });

  it('ranks the rules that most need tuning first', () => {
    expect(digest.noise.map((n) => [n.rule, n.fired, n.flaps, n.reminders, n.shortLived])).toEqual([
      ['error-blips', 19, 0, 0, 19],
      ['flappy-webhook', 8, 16, 0, 0],
      ['stuck-nodes', 1, 0, 9, 0],
    ]);
  });

  it('says to raise the threshold and ask for more samples of a rule whose incidents resolve within minutes', () => {
    expect(digest.noise[0]?.advice).toEqual([
      'raise param errors from 1 to 1.5: 19 of its incidents resolved within 10 min (rules.overrides.error-blips.params.errors)',
      'needs more samples: 2 of 3 instead of 1 of 2 on apiserver.5xx (in the rule itself)',
    ]);
  });

  it('says to double the hold-down of a rule that flaps', () => {
    expect(digest.noise[1]?.advice).toEqual([
      'raise holdDown from 10m to 20m: its incidents cleared and fired again 16 times within the hold-down (rules.overrides.flappy-webhook.holdDown)',
    ]);
  });

  it('says to fix the cause or re-notify less often for a rule that keeps reminding', () => {
    expect(digest.noise[2]?.advice).toEqual([
      'fix the cause, or raise notifications.renotify from 1h to 2h: it sent 9 reminders while its incidents stayed open',
    ]);
  });

  it('lists the incident still open first', () => {
    expect(digest.incidents[0]).toMatchObject({ rule: 'stuck-nodes', status: 'open', severity: 'page' });
    expect(renderDigest(digest).subject).toBe(
      'Sentinel digest 2024-W19: 1 page, 27 tickets, 1 open incident (replay of fixture)',
    );
  });
});
