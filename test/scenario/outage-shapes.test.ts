import { deploymentConfigSchema } from '../../shared/config/deployment-config.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import type { ReplayResult } from '../../shared/scenario/replay.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { defaultRuleSet, replayShipped, replaySignals, scenarioJson } from '../support/engine-fixtures.ts';
import { nodesCutOffSignals } from '../support/node-signals.ts';

/**
 * Each outage shape the rules model (webhooks that fail closed or hang, error-only outages, 5xx storms, slow
 * webhooks, kubelets cut off, spot waves) and the benign ones that look like them, replayed at the default cadence
 * (slow cycle, tripwire, every minute while paging): the page names the right cause within three minutes, or the shape gets the ticket it deserves and nothing else.
 */

const MINUTE = 60_000;
const of = (result: ReplayResult, cluster: string, kind?: Notification['kind']) =>
  result.notifications.filter((n) => n.clusters.includes(cluster) && (kind === undefined || n.kind === kind));
const minutesAfter = (result: ReplayResult, offsetMinutes: number, notification: Notification | undefined) =>
  notification ? (Date.parse(notification.at) - result.scenario.start) / MINUTE - offsetMinutes : Number.NaN;
const hintText = (notification: Notification | undefined) => notification?.hints.map((h) => h.text).join('\n') ?? '';

describe('a fail-closed webhook whose pods are all gone', () => {
  let result: ReplayResult;
  beforeAll(async () => {
    result = await replayShipped('webhook-fail-closed-no-endpoints');
  });

  it.each([
    ['prod-use2', 95],
    ['dev-euc1', 140],
  ])('pages webhook-blackhole once on %s within 3 minutes, from stock EKS signals', (cluster, onset) => {
    const pages = of(result, cluster, 'page');

    expect([pages.map((p) => p.rule), minutesAfter(result, onset, pages[0]) <= 3]).toEqual([
      ['webhook-blackhole'],
      true,
    ]);
  });

  it('shows the rejections that answer 500 as its evidence', () => {
    const [page] = of(result, 'dev-euc1', 'page');

    // A fifth of the calls rejected pages on the share after two minutes; the narrow branch's jump over the hour's
    // floor needs four, so it is not among the first page's evidence.
    expect(page?.evidence[0]?.items.map((e) => e.what)).toEqual([
      'webhook.rejections / webhook.requests (95 % lower bound)',
      'apiserver.5xx / webhook.rejections',
    ]);
  });

  it('never points at etcd or the control plane', () => {
    const sent = result.notifications.filter((n) => n.kind !== 'resolve');

    expect([sent.some((n) => n.rule === 'control-plane-degraded'), sent.some((n) => /etcd/.test(hintText(n)))]).toEqual(
      [false, false],
    );
  });
});

describe('a fail-open webhook that hangs until its timeout', () => {
  it.each([
    ['stage-apse1', 62],
    ['prod-apse1', 121],
  ])('pages webhook-blackhole on %s within 3 minutes, with no 5xx and no rejections', async (cluster, onset) => {
    const result = await replayShipped('webhook-timeout-fail-open');
    const pages = of(result, cluster, 'page');

    expect([pages.map((p) => p.rule), minutesAfter(result, onset, pages[0]) <= 3]).toEqual([
      ['webhook-blackhole'],
      true,
    ]);
  });
});

describe('error-only outages with writes under a second', () => {
  it.each([
    ['apf-429-shedding', 'prod-euw3', 60],
    ['apf-429-shedding', 'ci-euw3', 110],
    ['apiserver-5xx-no-429-series', 'prod-sae1', 75],
    ['apiserver-5xx-no-429-series', 'prod-sae2', 130],
    ['kms-plugin-not-ready', 'prod-cac1', 45],
  ])(
    '%s pages control-plane-degraded on %s within 3 minutes: the tripwire arms on the error share',
    async (name, cluster, onset) => {
      const result = await replayShipped(name);
      const pages = of(result, cluster, 'page');

      expect([pages.map((p) => p.rule), minutesAfter(result, onset, pages[0]) <= 3]).toEqual([
        ['control-plane-degraded'],
        true,
      ]);
    },
  );

  it('waits for the slow cycle without the tripwire, which is what the error leg is for', async () => {
    const result = await replayScenario((await replayShipped('apf-429-shedding')).scenario, {
      ruleSet: defaultRuleSet(),
      config: configWithoutTripwires(['prod-euw3', 'ci-euw3']),
    });

    expect(minutesAfter(result, 60, of(result, 'prod-euw3', 'page')[0])).toBeGreaterThan(3);
  });
});

describe('a 5xx storm on a cluster with no 429 series', () => {
  it('runs control-plane-degraded on the 5xx alone and says so', async () => {
    const result = await replayShipped('apiserver-5xx-no-429-series');
    const coverage = result.coverage.find((c) => c.cluster === 'prod-sae1' && c.rule === 'control-plane-degraded');

    expect([coverage?.status, coverage?.missing.includes('apiserver.429')]).toEqual(['partial', true]);
  });
});

describe('a slow webhook that taxes every write for days', () => {
  it('sends the webhook-latency-tax ticket once and nothing else', async () => {
    const result = await replayShipped('webhook-latency-tax-days');

    expect(result.notifications.map((n) => `${n.kind} ${n.rule}`)).toEqual(['ticket webhook-latency-tax']);
  });

  it('judges the control plane on write latency net of webhook time', () => {
    const scenario = parseScenario(
      scenarioJson({
        clusters: {
          taxed: { signals: { 'apiserver.write.p99': '1.25*20', 'webhook.p99': '1.1*20' } },
          slow: { signals: { 'apiserver.write.p99': '1.25*20', 'webhook.p99': '0.05*20' } },
        },
      }),
      'net-latency.json',
    );
    return replayScenario(scenario, { ruleSet: defaultRuleSet() }).then((result) =>
      expect(result.notifications.filter((n) => n.kind === 'page').map((n) => n.clusters)).toEqual([['slow']]),
    );
  });
});

describe('kubelets cut off from the control plane, nothing replacing the nodes', () => {
  let result: ReplayResult;
  beforeAll(async () => {
    result = await replayShipped('nodes-cut-off-from-control-plane');
  });

  it.each(['prod-usw2', 'batch-usw2'])('opens a nodes-unreachable ticket on %s, and pages no one', (cluster) => {
    expect(of(result, cluster).map((n) => `${n.kind} ${n.rule}`)).toEqual(
      expect.arrayContaining(['ticket nodes-unreachable']),
    );
    expect(of(result, cluster, 'page')).toEqual([]);
  });

  it('points at the path from the nodes to the control plane and at the CNI', () => {
    const hints = hintText(of(result, 'prod-usw2', 'ticket')[0]);

    expect([/security group/.test(hints), /aws-node/.test(hints)]).toEqual([true, true]);
  });
});

describe('half the nodes or more cut off, at sizes, speeds and levels the corpus does not have', () => {
  const QUIET = 60;
  const AFTER = 40;
  const cluster = nodesCutOffSignals;

  /** An hour quiet, then `perMinute` of the nodes more NotReady each minute up to `level`, held for 40 minutes. */
  const climb = (total: number, perMinute: number, level: number) => {
    const minutes = Math.ceil(level / perMinute);
    return [
      ...Array<number>(QUIET).fill(0),
      ...Array.from({ length: minutes }, (_, i) => Math.round(total * Math.min(level, perMinute * (i + 1)))),
      ...Array<number>(AFTER).fill(Math.round(total * level)),
    ];
  };
  const firstAt = (shares: readonly number[], test: (minute: number) => boolean) =>
    shares.findIndex((_, minute) => test(minute));
  const pageMinute = (result: ReplayResult) => {
    const page = result.notifications.find((n) => n.kind === 'page');
    return page ? (Date.parse(page.at) - result.scenario.start) / MINUTE : undefined;
  };

  it.each([
    [12, 0.05],
    [12, 0.6],
    [48, 0.02],
    [48, 0.2],
    [300, 0.01],
    [300, 0.04],
    [300, 0.3],
  ])(
    'pages %i nodes climbing by %f of them a minute no later than a 30 %% NotReady alarm (3 of 3 minutes), and within a minute of half',
    async (total, perMinute) => {
      const notReady = climb(total, perMinute, 0.85);
      const shares = notReady.map((n) => n / total);
      const half = firstAt(shares, (m) => (shares[m] ?? 0) >= 0.5);
      const alarm = firstAt(shares, (m) => m >= 2 && [0, 1, 2].every((back) => (shares[m - back] ?? 0) >= 0.3));

      const result = await replaySignals(cluster(total, notReady));
      const page = pageMinute(result);

      expect([
        result.notifications.find((n) => n.kind === 'page')?.rule,
        page !== undefined && page - half <= 1,
      ]).toEqual(['nodes-notready-at-scale', true]);
      expect(page).toBeLessThanOrEqual(Math.max(alarm, half));
    },
  );

  it('pages the first minute at half when the share climbed through a quarter for the two minutes before', async () => {
    // 300 nodes: 24 % (72), 36 % (108), 48 % (144), then 51 % (153).
    const notReady = [...Array<number>(QUIET).fill(0), 30, 72, 108, 144, 153, 200, ...Array<number>(AFTER).fill(240)];

    const result = await replaySignals(cluster(300, notReady));

    expect(pageMinute(result)).toBe(QUIET + 4);
  });

  it('waits for a second minute at half when the nodes go all at once', async () => {
    const notReady = [...Array<number>(QUIET).fill(0), ...Array<number>(AFTER).fill(9)];

    const result = await replaySignals(cluster(12, notReady));

    expect(pageMinute(result)).toBe(QUIET + 1);
  });

  it('pages no one for a node count that glitches past half for one minute', async () => {
    const notReady = [...Array<number>(QUIET).fill(0), 180, ...Array<number>(AFTER).fill(0)];

    const result = await replaySignals(cluster(300, notReady));

    expect(result.notifications.filter((n) => n.kind === 'page')).toEqual([]);
  });

  it('pages no one for one zone of three cut off from the control plane, however it climbs', async () => {
    // A zone of a 300-node cluster whose nodes lose their path one by one, up to 45 % of the cluster, and no further.
    const notReady = [
      ...Array<number>(QUIET).fill(0),
      ...climb(300, 0.05, 0.45).slice(QUIET),
      ...Array.from({ length: 30 }, (_, i) => 130 + (i % 5)),
    ];

    const result = await replaySignals(cluster(300, notReady));

    expect([
      result.notifications.filter((n) => n.kind === 'page'),
      result.notifications.some((n) => n.kind === 'ticket' && n.rule === 'nodes-unreachable'),
    ]).toEqual([[], true]);
  });
});

describe('a spot wave in a three-hour window', () => {
  it('opens a node-churn ticket on two hours of zeros, reading the baseline as none before', async () => {
    const result = await replayShipped('spot-wave-short-history');
    const [ticket] = of(result, 'batch-aps1', 'ticket');
    const change = ticket?.evidence[0]?.items.find((e) => e.over.startsWith('none in'));

    expect([ticket?.rule, change?.over, change?.observed]).toEqual([
      'node-churn',
      expect.stringMatching(/^none in the 6h before, [\d.]+ \(avg\) in the last 30m$/),
      expect.any(Number),
    ]);
    expect(JSON.stringify(ticket)).not.toMatch(/Infinity|infx/);
  });
});

describe('a fifth of a cluster leaving within minutes, in its first hour of history', () => {
  let result: ReplayResult;
  beforeAll(async () => {
    result = await replayShipped('spot-wave-fifth-first-hour-with-scale-in-twins');
  });

  it.each(['gpu-usw1', 'ci-usw1'])('tells of the spot wave on %s as node churn and pages no one', (cluster) => {
    const rules = new Set(of(result, cluster).map((n) => n.rule));

    expect([[...rules], of(result, cluster, 'page')]).toEqual([['node-churn'], []]);
  });

  it.each(['batch-usw1', 'etl-usw1'])(
    'sends nothing when an Auto Scaling group on %s shrinks by a fifth on schedule, since no node is replaced',
    (cluster) => {
      expect(of(result, cluster)).toEqual([]);
    },
  );
});

describe('a narrow webhook failing open beside a busy one, with webhook.failures scraped', () => {
  let result: ReplayResult;
  beforeAll(async () => {
    result = await replayShipped('narrow-webhook-fails-open-beside-busy-one');
  });

  it.each([
    ['prod-aps2', 120],
    ['edge-aps2', 170],
  ])(
    'tells of the webhook failing open on %s within 30 minutes, though its failing calls stay under a fifth',
    (cluster, onset) => {
      const [first] = of(result, cluster);

      expect([first?.rule, minutesAfter(result, onset, first) <= 30, of(result, cluster, 'page')]).toEqual([
        'webhook-failing-open',
        true,
        [],
      ]);
    },
  );

  it('leaves the minutes of refused calls at each rollout to webhook-availability-gaps', () => {
    expect(of(result, 'gk-aps2').map((n) => n.rule)).toEqual(['webhook-availability-gaps']);
  });
});

describe('a low error share on traffic that falls by three quarters at night', () => {
  let result: ReplayResult;
  beforeAll(async () => {
    result = await replayShipped('sustained-errors-on-diurnal-traffic');
  });

  it('sends nothing for errors as many as ever, whose share rises only because the traffic fell', () => {
    expect(of(result, 'prod-euw1')).toEqual([]);
  });

  it('reads no restarts into the night minutes of six or seven errors of 90 requests on 8 nodes', () => {
    expect(of(result, 'edge-euw1')).toEqual([]);
  });

  it('tickets an API that starts failing at night within about an hour', () => {
    const [ticket] = of(result, 'batch-euw1', 'ticket');

    expect([ticket?.rule, minutesAfter(result, 540, ticket) <= 90]).toEqual(['apiserver-sustained-errors', true]);
  });
});

describe('benign shapes', () => {
  it.each([
    'policy-denies-on-purpose',
    'eks-version-upgrade-blips',
    'regional-metrics-delay',
    'large-cluster-steady-spot-churn',
  ])('%s pages no one', async (name) => {
    const result = await replayShipped(name);

    expect(result.notifications.filter((n) => n.kind === 'page')).toEqual([]);
  });
});

/** The configuration of a deployment of these clusters that turned its tripwires off. */
function configWithoutTripwires(clusters: readonly string[]) {
  return deploymentConfigSchema.parse({
    clusters: clusters.map((name) => ({ name })),
    poll: { tripwire: { enabled: false } },
  });
}

describe('apiserver-restart-errors', () => {
  const restartErrors = async (errors: string) => {
    const result = await replaySignals({
      'apiserver.write.p99': '0.2*90',
      'apiserver.requests': '1500*90',
      'apiserver.5xx': errors,
    });
    return result.notifications.filter((n) => n.rule === 'apiserver-restart-errors' && n.kind === 'ticket').length;
  };

  it('reads two one-minute bursts as restarts', async () => {
    expect(await restartErrors('2*30 60 2*9 60 2*49')).toBe(1);
  });

  it('does not read an error share hovering around the line for most of an hour as bursts', async () => {
    expect(await restartErrors(`2*20 ${'31 29 '.repeat(20)}2*30`)).toBe(0);
  });
});

describe('robustness of the webhook rules to what a cluster reports', () => {
  it('names the webhook failing closed on a cluster that does not report its webhook calls', async () => {
    const result = await replaySignals({
      'apiserver.write.p99': '0.2*30',
      'apiserver.requests': '4000*30',
      'apiserver.5xx': '3*10 900*20',
      'webhook.rejections': '2*10 880*20',
    });

    expect(result.notifications.filter((n) => n.kind === 'page').map((n) => n.rule)).toEqual(['webhook-blackhole']);
  });

  it('keeps one webhook-latency-tax ticket through a quiet half hour', async () => {
    const result = await replaySignals({
      'apiserver.write.p99': '1.2*300 0.2*30 1.2*300',
      'webhook.p99': '1.1*300 0.02*30 1.1*300',
      'apiserver.requests': '3000*630',
      'apiserver.5xx': '2*630',
    });

    expect(result.notifications.filter((n) => n.kind === 'ticket').map((n) => n.rule)).toEqual(['webhook-latency-tax']);
  });
});

describe('a narrow webhook failing closed beside a busy healthy one, at sizes the corpus does not have', () => {
  // Seventy minutes of a healthy cluster, then thirty of a narrow webhook refused by its backend, then forty healthy.
  const during = (quiet: number, failing: number) => `${quiet}*70 ${failing}*30 ${quiet}*40`;
  const cluster = (webhookCalls: number, failing: number, answered5xx: boolean, background5xx: number) => ({
    'apiserver.write.p99': '0.2*140',
    'apiserver.requests': `${webhookCalls * 2}*140`,
    'apiserver.429': '0*140',
    'webhook.requests': `${webhookCalls}*140`,
    'webhook.p99': '0.05*140',
    'webhook.rejections': during(1, failing),
    'apiserver.5xx': answered5xx ? during(background5xx, background5xx + failing) : `${background5xx}*140`,
  });

  it.each([
    ['a 40-node cluster, 1,500 webhook calls a minute, 15 refused', 1_500, 15, 1],
    ['a 600-node cluster, 20,000 webhook calls a minute, 150 refused', 20_000, 150, 12],
  ])('pages webhook-blackhole within 3 minutes on %s', async (_, calls, failing, background) => {
    const result = await replaySignals(cluster(calls, failing, true, background));
    const pages = of(result, 'dev-a', 'page');

    expect([pages.map((p) => p.rule), minutesAfter(result, 70, pages[0]) <= 3]).toEqual([['webhook-blackhole'], true]);
  });

  it.each([
    ['1,500 webhook calls a minute, 15 denied', 1_500, 15, 1],
    ['20,000 webhook calls a minute, 150 denied', 20_000, 150, 12],
  ])('stays quiet when a policy denies on purpose (4xx): %s', async (_, calls, denied, background) => {
    const result = await replaySignals(cluster(calls, denied, false, background));

    expect(result.notifications.filter((n) => n.kind === 'page')).toEqual([]);
  });
});

describe('a narrow webhook failing closed on busy 2,000-node clusters, and a policy denying on purpose beside them', () => {
  let result: ReplayResult;
  beforeAll(async () => {
    result = await replayShipped('narrow-webhook-on-large-clusters');
  });

  it.each([
    ['prod-euw1', 150],
    ['prod-euw2', 240],
  ])(
    'pages webhook-blackhole once on %s within 3 minutes, over a 5xx floor larger than the failing calls',
    (cluster, onset) => {
      const pages = of(result, cluster, 'page');

      expect([pages.map((p) => p.rule), minutesAfter(result, onset, pages[0]) <= 3]).toEqual([
        ['webhook-blackhole'],
        true,
      ]);
    },
  );

  it('keeps the page open while the calls fail closed, since the 5xx rise with the rejections whatever their floor', () => {
    const [resolved] = of(result, 'prod-euw1', 'resolve');

    expect(minutesAfter(result, 200, resolved)).toBeGreaterThanOrEqual(0);
  });

  it('sends nothing for denials during a morning ramp, whose 5xx climb with the traffic and not with the rejections', () => {
    expect(of(result, 'prod-euw3')).toEqual([]);
  });
});

describe('an etcd stall on a busy cluster whose policy denials wander', () => {
  it('pages control-plane-degraded once and never names a webhook for 5xx the rejections do not account for', async () => {
    const result = await replayShipped('write-latency-stalls-ramp-and-step');

    expect(of(result, 'prod-usw2', 'page').map((p) => p.rule)).toEqual(['control-plane-degraded']);
  });
});

describe('restart bursts and low errors that hold, with missing datapoints and noise', () => {
  it('tickets two bursts on a 5-node cluster with a datapoint missing between them', async () => {
    const result = await replayShipped('apiserver-restart-bursts-large-and-small');

    expect(of(result, 'dev-cac1', 'ticket').map((t) => t.rule)).toEqual(['apiserver-restart-errors']);
  });

  it('reads no restarts into the noise of a low error share that holds for hours', async () => {
    const result = await replayShipped('sustained-low-errors-conversion-webhook');

    expect(of(result, 'prod-euw1', 'ticket').map((t) => t.rule)).toEqual(['apiserver-sustained-errors']);
  });
});

describe('one zone cut off on a 2,000-node cluster that replaces a node a minute by routine scaling', () => {
  it('gets the nodes-unreachable ticket: a node a minute of 2,000 is no repair storm', async () => {
    const result = await replayShipped('nodes-notready-small-and-large');

    expect(of(result, 'prod-use2b').map((n) => `${n.kind} ${n.rule}`)).toEqual([
      'ticket nodes-unreachable',
      'resolve nodes-unreachable',
    ]);
  });
});
