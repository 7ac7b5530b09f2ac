import { readFileSync } from 'node:fs';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { documentClient } from '../../aws/clients.ts';
import { dynamoDbActivityReader } from '../../aws/dynamodb/activity-reader.ts';
import { dynamoDbStores } from '../../aws/dynamodb/stores.ts';
import { main } from '../../cli/main.ts';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import { costModel } from '../../shared/digest/cost-model.ts';
import { digestOfWeek } from '../../shared/digest/digest-of-week.ts';
import { weekContaining } from '../../shared/digest/iso-week.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario, type Scenario } from '../../shared/scenario/scenario.ts';
import { parseJson } from '../../shared/schema-errors.ts';
import { type AwsHarness, putScenario, startAwsHarness, TABLE, writeConfig } from '../../support/aws-harness.ts';
import { type CapturedOutput, captureOutput } from '../../support/captured-output.ts';
import { monotonicFollowsArrivals } from '../../support/handler-clock.ts';
import { arriveAt, harnessClusters, loadPoller, type PollHandler, pollAt } from '../../support/poller-harness.ts';
import type { CloudFormationServer } from '../support/cloudformation-server.ts';
import { ALICE, startOperatorStack } from '../support/operator-stack.ts';
import type { StsServer } from '../support/sts-server.ts';

const STEPS = 140;
/** The cluster whose ticket the silence holds back, and the one whose severe outage it must not hold back. */
const TICKET_CLUSTER = 'prod-euw5';
const PAGE_CLUSTER = 'dev-euw1';
/** The same fail-open webhook on a staging cluster, which a silence of prod must not hold back. */
const UNSILENCED_CLUSTER = 'staging-euw5';
const ENVIRONMENT: Record<string, string> = {
  [TICKET_CLUSTER]: 'prod',
  [PAGE_CLUSTER]: 'dev',
  [UNSILENCED_CLUSTER]: 'staging',
};

/**
 * Two corpus scenarios side by side on one timeline: a webhook that fails open on prod-euw5, a ticket about an hour
 * in (scenarios/webhook-fail-open-no-endpoints.json, from its 40th minute), and the OPA outage on dev-euw1 as a
 * cluster without webhook metrics sees it, half of all requests failing, a control-plane page about 40 minutes in
 * (scenarios/outage-inside-maintenance-window.json, from its 90th minute, after its upgrade blips).
 */
function silencedFleet(): Scenario {
  const series = (file: string, cluster: string, from: number) => {
    const scenario = parseScenario(parseJson(readFileSync(file, 'utf8'), file), file);
    const signals = scenario.clusters.get(cluster) ?? {};
    return {
      start: scenario.start + from * 60_000,
      signals: Object.fromEntries(Object.entries(signals).map(([name, s]) => [name, s?.slice(from, from + STEPS)])),
    };
  };
  const ticket = series('scenarios/webhook-fail-open-no-endpoints.json', TICKET_CLUSTER, 40);
  const page = series('scenarios/outage-inside-maintenance-window.json', PAGE_CLUSTER, 90);
  return parseScenario(
    {
      format: 'sentinel.scenario/v1',
      name: 'silenced-fleet',
      description: 'webhook-fail-open-no-endpoints.json and outage-inside-maintenance-window.json side by side',
      start: new Date(ticket.start).toISOString(),
      stepSeconds: 60,
      clusters: {
        [TICKET_CLUSTER]: { signals: ticket.signals },
        [PAGE_CLUSTER]: { signals: page.signals },
        [UNSILENCED_CLUSTER]: { signals: ticket.signals },
      },
      expect: [],
    },
    'silenced fleet',
  );
}

const capture = () => {
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  return {
    lines,
    out: { stdout: (line: string) => lines.stdout.push(line), stderr: (line: string) => lines.stderr.push(line) },
  };
};

/** `sentinel ARGS`, as a user types it, against the loopback stack; the exit code and what it printed. */
async function sentinel(...args: string[]) {
  const { lines, out } = capture();
  const code = await main(args, out);
  return { code, stdout: lines.stdout.join('\n'), stderr: lines.stderr.join('\n') };
}

/** An hour's silence of prod-euw5, as on-call adds it. */
const addProdSilence = () =>
  sentinel(
    'silence',
    'add',
    '--cluster',
    'prod-euw5',
    '--for',
    '1h',
    '--reason',
    'x',
    '--table',
    TABLE,
    '--config',
    configFile,
  );

let harness: AwsHarness;
let cloudformation: CloudFormationServer;
let sts: StsServer;
let scenario: Scenario;
let clusters: ReturnType<typeof harnessClusters>;
let configFile: string;
let output: CapturedOutput;

beforeAll(async () => {
  // The minute between two polls passes for the poller's quota pacers and the fakes' quota meters too, as in Lambda.
  monotonicFollowsArrivals();
  // The poller logs its metrics in embedded metric format on stdout.
  output = captureOutput();
  harness = await startAwsHarness();
  ({ cloudformation, sts } = await startOperatorStack(harness));
  scenario = silencedFleet();
  clusters = harnessClusters([TICKET_CLUSTER, PAGE_CLUSTER, UNSILENCED_CLUSTER]).map((cluster) => ({
    ...cluster,
    labels: { environment: ENVIRONMENT[cluster.name] ?? '' },
  }));
  await putScenario(scenario, clusters);
  configFile = writeConfig({ clusters, poll: { every: '1m' } });
}, 60_000);

afterAll(async () => {
  output.restore();
  await Promise.all([harness.close(), cloudformation.close(), sts.close()]);
});

describe('sentinel silence against the deployed table', () => {
  it('refuses a silence on a cluster the configuration does not name, a bad duration and no reason, naming each, before asking AWS', async () => {
    const refused = await sentinel(
      'silence',
      'add',
      '--cluster',
      'prod-euw9',
      '--for',
      '9d',
      '--reason',
      ' ',
      '--stack',
      'OpsStack',
      '--config',
      configFile,
    );

    expect([cloudformation.calls, sts.calls]).toEqual([{}, {}]);
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(
        /--match cluster=prod-euw9: no cluster "prod-euw9" in the configuration: did you mean "prod-euw5"\?[\s\S]*--for 9d: expected at most 7d[\s\S]*--reason says nothing/,
      ),
    });
  });

  it('refuses options that belong to another action, and an action it does not know', async () => {
    const list = await sentinel('silence', 'list', '--cluster', 'prod-euw5', '--stack', 'OpsStack');
    const unknown = await sentinel('silence', 'mute', '--stack', 'OpsStack');

    expect([list.code, list.stderr.split('\n')[0], unknown.code, unknown.stderr.split('\n')[0]]).toEqual([
      2,
      'sentinel: --cluster is for silence add only',
      2,
      'sentinel: silence needs an action, add, list, extend ID or expire ID, got "mute"',
    ]);
  });

  it('adds a silence that names the caller STS names, lists it, and expires it early', async () => {
    arriveAt(Date.parse('2026-11-23T10:00:00Z'));
    const added = await sentinel(
      'silence',
      'add',
      '--cluster',
      'prod-euw5',
      '--for',
      '2h',
      '--reason',
      'EKS upgrade',
      '--table',
      TABLE,
      '--config',
      configFile,
    );
    const id = /Silence (\w+) added/.exec(added.stdout)?.[1] ?? '';
    const listed = await sentinel('silence', 'list', '--stack', 'OpsStack');
    const expired = await sentinel('silence', 'expire', id, '--stack', 'OpsStack');
    const after = await sentinel('silence', 'list', '--stack', 'OpsStack');
    const twice = await sentinel('silence', 'expire', id, '--stack', 'OpsStack');

    expect({ added, listed, expired, after, twice }).toEqual({
      added: expect.objectContaining({
        code: 0,
        stdout: expect.stringContaining(
          `cluster=prod-euw5, 2026-11-23T10:00:00Z to 2026-11-23T12:00:00Z, by ${ALICE}: "EKS upgrade"`,
        ),
      }),
      listed: expect.objectContaining({
        code: 0,
        stdout: expect.stringMatching(new RegExp(`^${id}  cluster=prod-euw5, [^\n]*\n    held back: nothing$`)),
      }),
      expired: expect.objectContaining({
        code: 0,
        stdout: expect.stringContaining(`Silence ${id} expired at 2026-11-23T10:00:`),
      }),
      after: expect.objectContaining({ code: 0, stdout: 'No silence holds now or later.' }),
      twice: expect.objectContaining({
        code: 2,
        stderr: `sentinel: no silence ${id} holds now: sentinel silence list shows those that do`,
      }),
    });
  });

  it('keeps a silence for the table retention after it ends, for the digests, and lets TTL delete it then', async () => {
    const { Items = [] } = await documentClient().send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'SILENCE' },
      }),
    );
    const [item] = Items;

    expect(item?.expiresAt).toBe(Math.floor((item?.silence.to + 35 * 86_400_000) / 1000));
  });

  it('retries a throttled GetCallerIdentity and adds the silence once', async () => {
    sts.faults.inject({ kind: 'throttle', operation: 'GetCallerIdentity', times: 1 });
    const added = await addProdSilence();
    const id = /Silence (\w+) added/.exec(added.stdout)?.[1] ?? '';
    const expired = await sentinel('silence', 'expire', id, '--table', TABLE);

    expect([added.code, sts.faults.fired.throttle, expired.code]).toEqual([0, 1, 0]);
  });

  it('refuses a caller whose credentials STS does not accept, and adds nothing', async () => {
    const accessKey = process.env.AWS_ACCESS_KEY_ID;
    process.env.AWS_ACCESS_KEY_ID = 'AKIAUNKNOWN';
    try {
      const refused = await addProdSilence();

      expect([refused.code, refused.stderr]).toEqual([
        3,
        expect.stringMatching(
          /^sentinel: AwsRequestError: AWS refused the request: InvalidClientTokenId \(HTTP 403\): .*security token included in the request is invalid/,
        ),
      ]);
      expect(refused.stderr).toMatch(/credentials are not valid or have expired/);
      expect(refused.stderr).not.toMatch(/\n\s+at /);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = accessKey;
    }
    expect((await sentinel('silence', 'list', '--table', TABLE)).stdout).toBe('No silence holds now or later.');
  });
});

describe('sentinel silence over time, and silences stored before matchers', () => {
  const add = (...args: string[]) =>
    sentinel('silence', 'add', ...args, '--reason', 'teardown', '--table', TABLE, '--config', configFile);
  const idOf = (added: { stdout: string }) => /Silence (\w+) added/.exec(added.stdout)?.[1] ?? '';
  const storedEnds = async (id: string) => {
    const { Items = [] } = await documentClient().send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'SILENCE' },
      }),
    );
    return Items.filter((item) => item.silence.id === id).map((item) => new Date(item.silence.to).toISOString());
  };

  it('extends a silence by its id, keeping one stored item at its new end', async () => {
    arriveAt(Date.parse('2026-11-24T10:00:00Z'));
    const id = idOf(await add('--match', 'environment=staging', '--match', 'rule=webhook-failing-open', '--for', '1h'));
    const extended = await sentinel('silence', 'extend', id, '--for', '2h', '--table', TABLE);

    expect([extended.code, extended.stdout, await storedEnds(id)]).toEqual([
      0,
      expect.stringContaining(
        `Silence ${id} extended to 2026-11-24T13:00:00Z: environment=staging, rule=webhook-failing-open`,
      ),
      ['2026-11-24T13:00:00.000Z'],
    ]);
  });

  it('adds a silence of pages for at most four hours, and keeps it within four hours when extended', async () => {
    arriveAt(Date.parse('2026-11-25T10:00:00Z'));
    const tooLong = await add('--match', 'cluster=dev-euw1', '--include-pages', '--for', '5h');
    const id = idOf(await add('--match', 'cluster=dev-euw1', '--include-pages', '--for', '3h'));
    const beyond = await sentinel('silence', 'extend', id, '--for', '2h', '--table', TABLE);

    expect([tooLong.code, tooLong.stderr, id === '', beyond.code, beyond.stderr]).toEqual([
      2,
      expect.stringContaining('--for 5h: expected at most 4h, got 5h for a silence that includes pages'),
      false,
      2,
      expect.stringContaining('more than 4h from now, the most a silence that includes pages may have left'),
    ]);
  });

  it('reads a silence stored before matchers, which names its cluster, and expires it', async () => {
    arriveAt(Date.parse('2026-11-26T10:00:00Z'));
    const from = Date.parse('2026-11-26T09:00:00Z');
    const to = Date.parse('2026-11-26T12:00:00Z');
    await documentClient().send(
      new PutCommand({
        TableName: TABLE,
        Item: {
          pk: 'SILENCE',
          sk: '2026-11-26T12:00:00.000Z#0ld5113n',
          silence: { id: '0ld5113n', cluster: 'prod-euw5', from, to, reason: 'from the last release', author: ALICE },
          expiresAt: Math.floor(to / 1000) + 35 * 86_400,
        },
      }),
    );
    const listed = await sentinel('silence', 'list', '--table', TABLE);
    const expired = await sentinel('silence', 'expire', '0ld5113n', '--table', TABLE);

    expect([listed.stdout, expired.code]).toEqual([
      expect.stringMatching(/^0ld5113n {2}cluster=prod-euw5, 2026-11-26T09:00:00Z to 2026-11-26T12:00:00Z/m),
      0,
    ]);
  });
});

describe('a silence added with the CLI, through the real poller', () => {
  let poll: PollHandler;
  let unsilenced: readonly Notification[];
  let sent: Notification[];
  /** The id of the silence on the cluster that pages, the last one added. */
  let pageSilence = '';

  beforeAll(async () => {
    poll = await loadPoller(harness, clusters, { poll: { every: '1m' } });
    const { config, ruleSet } = loadConfig({ clusters, poll: { every: '1m' } }, 'test config');
    unsilenced = (await replayScenario(scenario, { ruleSet, config })).notifications;
    harness.sns.published.length = 0;
    // On-call silences prod by its label, and dev-euw1 by name, for three hours, just before the first poll.
    arriveAt(scenario.start + 60_000);
    for (const match of ['environment=prod', `cluster=${PAGE_CLUSTER}`]) {
      const added = await sentinel(
        'silence',
        'add',
        '--match',
        match,
        '--for',
        '3h',
        '--reason',
        'node group rotation',
        '--stack',
        'OpsStack',
        '--config',
        configFile,
      );
      pageSilence = /Silence (\w+) added/.exec(added.stdout)?.[1] ?? '';
      expect(added.code).toBe(0);
    }
    for (let step = 0; step < STEPS; step++) {
      await pollAt(poll, scenario.start + step * 60_000);
    }
    sent = harness.sns.published.map((p) => JSON.parse(JSON.parse(p.message).default) as Notification);
  }, 240_000);

  const kinds = (notifications: readonly Notification[], cluster: string) =>
    notifications.filter((n) => n.clusters.includes(cluster)).map((n) => `${n.kind} ${n.rule}`);

  it('would ticket the fail-open webhook and page the control plane without the silences', () => {
    expect([
      kinds(unsilenced, TICKET_CLUSTER),
      kinds(unsilenced, PAGE_CLUSTER),
      kinds(unsilenced, UNSILENCED_CLUSTER),
    ]).toEqual([
      ['ticket webhook-failing-open', 'resolve webhook-failing-open'],
      ['page control-plane-degraded', 'resolve control-plane-degraded'],
      ['ticket webhook-failing-open', 'resolve webhook-failing-open'],
    ]);
  });

  it("holds back the ticket of the cluster the label silence matches, and not another cluster's", () => {
    expect([kinds(sent, TICKET_CLUSTER), kinds(sent, UNSILENCED_CLUSTER)]).toEqual([
      [],
      ['ticket webhook-failing-open', 'resolve webhook-failing-open'],
    ]);
  });

  it('lists each silence with what it held back', async () => {
    const listed = await sentinel('silence', 'list', '--stack', 'OpsStack');

    expect(listed.stdout).toMatch(
      /environment=prod, [^\n]*"node group rotation"\n {4}held back: ticket webhook-failing-open on prod-euw5 since \S+$/m,
    );
    expect(listed.stdout).toMatch(
      /cluster=dev-euw1, [^\n]*\n {4}held back: page control-plane-degraded on dev-euw1 since \S+, shown \S+$/m,
    );
  });

  it('lists the same as JSON with --json, every silence with its matchers and the incidents it held back', async () => {
    const listed = await sentinel('silence', 'list', '--json', '--stack', 'OpsStack');
    const silences = JSON.parse(listed.stdout) as { id: string; matchers: string[]; heldBack: { cluster: string }[] }[];

    expect(silences.map((s) => [s.matchers, s.heldBack.map((h) => h.cluster)])).toEqual(
      expect.arrayContaining([
        [['environment=prod'], [TICKET_CLUSTER]],
        [[`cluster=${PAGE_CLUSTER}`], [PAGE_CLUSTER]],
      ]),
    );
    expect(silences.find((s) => s.id === pageSilence)).toMatchObject({
      includePages: false,
      author: ALICE,
      reason: 'node group rotation',
      from: expect.stringMatching(/Z$/),
      heldBack: [{ rule: 'control-plane-degraded', severity: 'page', shownAt: expect.any(String) }],
    });
  });

  it('still pages the severe control-plane outage on the silenced cluster, saying which silence it overrode', () => {
    const page = sent.find((n) => n.kind === 'page');

    expect([kinds(sent, PAGE_CLUSTER)[0], page?.reason, page?.changes]).toEqual([
      'page control-plane-degraded',
      'maintenance-override',
      [
        expect.stringMatching(
          new RegExp(
            `^dev-euw1: paging despite silence ${pageSilence} "node group rotation" \\(${ALICE}, until .*\\): control-plane-degraded is severe`,
          ),
        ),
      ],
    ]);
  });

  it('records on the held-back incident which silence holds it, and who added it', async () => {
    const stores = dynamoDbStores({ client: documentClient(), table: TABLE, now: Date.now });
    const incidents = await stores.incidents.overlapping(scenario.start, scenario.start + STEPS * 60_000);
    const held = incidents.find((i) => i.cluster === TICKET_CLUSTER);

    expect(held?.mutedBy).toEqual({
      silence: expect.any(String),
      reason: 'node group rotation',
      author: ALICE,
      until: expect.any(String),
    });
  });

  it('lists both silences in the weekly digest, with their author and what each held back, shown later or never', async () => {
    const { config, ruleSet } = loadConfig({ clusters }, 'test config');
    const digest = await digestOfWeek(
      {
        activityLog: dynamoDbActivityReader({ client: documentClient(), table: TABLE, now: Date.now }),
        ruleSet,
        config,
        costModel: costModel(512),
        source: { kind: 'deployment', name: 'test' },
      },
      weekContaining(scenario.start, 'UTC'),
    );

    // Both were added in the same second, which the digest's order (earliest first) cannot tell apart: by matcher.
    expect(
      digest.silences
        .map((s) => [
          s.matchers?.join(', '),
          s.author,
          s.heldBack.map((h) => `${h.severity} ${h.rule} on ${h.cluster}${h.shownAt ? ', shown' : ', never shown'}`),
        ])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual([
      // Held while it could still be an upgrade's blip, then paged once half of all requests had failed for ten minutes.
      [`cluster=${PAGE_CLUSTER}`, ALICE, ['page control-plane-degraded on dev-euw1, shown']],
      ['environment=prod', ALICE, ['ticket webhook-failing-open on prod-euw5, never shown']],
    ]);
  });
});
