import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { main } from '../../cli/main.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import type { IncidentExplanation } from '../../shared/incidents/explain-incident.ts';
import type { FleetIncidentSummary } from '../../shared/incidents/fleet-incidents.ts';
import { type AwsHarness, putScenario, startAwsHarness, TABLE, writeConfig } from '../../support/aws-harness.ts';
import { type CapturedOutput, captureOutput } from '../../support/captured-output.ts';
import { monotonicFollowsArrivals } from '../../support/handler-clock.ts';
import {
  arriveAt,
  harnessClusters,
  loadPoller,
  type PollHandler,
  pollAt,
  trimmedScenario,
} from '../../support/poller-harness.ts';
import type { CloudFormationServer } from '../support/cloudformation-server.ts';
import { ALICE, startOperatorStack } from '../support/operator-stack.ts';
import type { StsServer } from '../support/sts-server.ts';

/** scenarios/fleet-webhook-outage.json from its 40th minute: the fleet page at step 36, the outage over by step 91. */
const scenario = trimmedScenario('scenarios/fleet-webhook-outage.json', 40);
const stepAt = (step: number) => scenario.start + step * 60_000;

/** `sentinel ARGS`, as a user types it, against the loopback stack; the exit code and what it printed. */
async function sentinel(...args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(args, { stdout: (line) => stdout.push(line), stderr: (line) => stderr.push(line) });
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

/** What the paging and notice topics carried, as the notifications the delivery queue would read. */
function published(harness: AwsHarness): Notification[] {
  return harness.sns.published.flatMap((p) =>
    p.topicArn === harness.topics.digest ? [] : [JSON.parse(JSON.parse(p.message).default) as Notification],
  );
}

let harness: AwsHarness;
let cloudformation: CloudFormationServer;
let sts: StsServer;
let poll: PollHandler;
let output: CapturedOutput;
let config: string;

beforeAll(async () => {
  // The minute between two polls passes for the poller's quota pacers and the fakes' quota meters too, as in Lambda.
  monotonicFollowsArrivals();
  // The poller logs its metrics in embedded metric format on stdout.
  output = captureOutput();
  harness = await startAwsHarness();
  ({ cloudformation, sts } = await startOperatorStack(harness));
  const clusters = harnessClusters(['dev-a', 'dev-b', 'dev-c']);
  await putScenario(scenario, clusters);
  const settings = { poll: { every: '1m' } };
  config = writeConfig({ clusters, ...settings });
  poll = await loadPoller(harness, clusters, settings);
  for (let step = 30; step <= 40; step++) await pollAt(poll, stepAt(step));
}, 120_000);

afterAll(async () => {
  output.restore();
  await Promise.all([harness.close(), cloudformation.close(), sts.close()]);
});

describe('sentinel incidents against the deployed table', () => {
  let id = '';

  it('lists the open fleet incident with its rule, clusters, age, last notification and mute state', async () => {
    arriveAt(stepAt(41) + 30_000);
    const text = await sentinel('incidents', 'list', '--stack', 'OpsStack');
    const json = await sentinel('incidents', 'list', '--table', TABLE, '--json');
    const [summary, ...others] = JSON.parse(json.stdout) as FleetIncidentSummary[];
    id = summary?.id ?? '';

    expect([text.code, json.code, others]).toEqual([0, 0, []]);
    expect(summary).toEqual({
      id: expect.stringMatching(/^dev-\w\/webhook-blackhole\//),
      rule: 'webhook-blackhole',
      severity: 'page',
      clusters: ['dev-a', 'dev-b', 'dev-c'],
      openedAt: expect.any(String),
      ageSeconds: expect.any(Number),
      lastNotification: { at: expect.any(String), kind: 'page', reason: 'opened', status: 'delivered' },
    });
    expect(text.stdout).toMatch(/PAGE webhook-blackhole on dev-a, dev-b, dev-c, open \d+m \(since /);
    expect(text.stdout).toMatch(/last page \(opened\) \S+; not muted/);
  });

  it("shows the evidence, the rule's m-of-n, each stage's decision and where the page went", async () => {
    const shown = await sentinel('incidents', 'show', id, '--stack', 'OpsStack', '--config', config, '--json');
    const explanation = JSON.parse(shown.stdout) as IncidentExplanation;
    const text = await sentinel('incidents', 'show', id, '--table', TABLE);

    expect([shown.code, explanation.status, explanation.rule.condition]).toEqual([
      0,
      'open',
      expect.stringMatching(/webhook\.p99 >= \$\w+ in 2 of the last 3 samples/),
    ]);
    expect(explanation.stages.map((s) => s.stage)).toEqual([
      'evaluate',
      'correlate',
      'lifecycle',
      'group',
      'mute',
      'dedup',
    ]);
    expect(explanation.notifications.map((n) => [n.notification.kind, n.status, n.route])).toEqual([
      ['page', 'delivered', { topic: 'paging', integrations: [] }],
    ]);
    expect(text.stdout).toMatch(/evaluate:\n {4}dev-a: webhook-blackhole met: webhook\.p99/);
    expect(text.stdout).toMatch(/page \(opened\) to paging topic: delivered/);
  });

  it('resolves it by hand everywhere its page went, in the name STS gives, once however often it is asked', async () => {
    arriveAt(stepAt(42) + 10_000);
    const before = published(harness).length;
    const resolved = await sentinel(
      'incidents',
      'resolve',
      id,
      '--reason',
      'webhook rolled back',
      '--stack',
      'OpsStack',
    );
    const again = await sentinel('incidents', 'resolve', id, '--reason', 'twice', '--stack', 'OpsStack');
    const sent = published(harness).slice(before);
    const [page] = published(harness);

    expect([resolved.code, again.code, again.stdout]).toEqual([0, 0, expect.stringContaining('sent already')]);
    expect(resolved.stdout).toContain(`resolved by hand by ${ALICE}`);
    expect(sent.map((n) => [n.kind, n.reason, n.group, n.clusters])).toEqual([
      ['resolve', 'resolved-by-hand', page?.group, ['dev-a', 'dev-b', 'dev-c']],
    ]);
    expect(sent[0]?.changes).toEqual([`resolved by hand by ${ALICE}: webhook rolled back`]);
  });

  it('sends nothing more while its rules still fire, nor when they go clear, and lists it as resolved by hand', async () => {
    const before = published(harness).length;
    for (let step = 43; step <= 50; step++) await pollAt(poll, stepAt(step));
    const listed = await sentinel('incidents', 'list', '--stack', 'OpsStack', '--json');
    for (let step = 51; step <= 100; step++) await pollAt(poll, stepAt(step));
    const after = await sentinel('incidents', 'list', '--stack', 'OpsStack');
    const shown = await sentinel('incidents', 'show', id, '--stack', 'OpsStack');

    expect(published(harness).slice(before)).toEqual([]);
    expect((JSON.parse(listed.stdout) as FleetIncidentSummary[]).map((s) => s.resolvedBy?.author)).toEqual([ALICE]);
    expect([after.stdout, shown.stdout.split('\n')[0]]).toEqual(['No incident is open.', `${id}: resolved`]);
    expect(shown.stdout).toContain(`resolved by hand by ${ALICE}: "webhook rolled back"`);
  }, 120_000);

  it('refuses an unknown id, a resolve without a reason and a second source, naming each', async () => {
    const unknown = await sentinel('incidents', 'show', 'dev-z/nothing', '--table', TABLE);
    const noReason = await sentinel('incidents', 'resolve', id, '--table', TABLE);
    const both = await sentinel('incidents', 'list', '--table', TABLE, '--stack', 'OpsStack');

    expect([unknown.code, noReason.code, both.code]).toEqual([2, 2, 2]);
    expect([unknown.stderr, noReason.stderr, both.stderr]).toEqual([
      expect.stringContaining('no incident dev-z/nothing'),
      expect.stringContaining('incidents resolve needs --reason TEXT'),
      expect.stringContaining('give one of --stack NAME or --table NAME, not several'),
    ]);
  });
});

describe('sentinel incidents show --scenario', () => {
  it('explains a replayed incident: its stages, its evidence and its notifications', async () => {
    const replayed = await sentinel(
      'incidents',
      'show',
      'dev-a/webhook-blackhole/2025-02-14T09:16:00Z',
      '--scenario',
      'scenarios/fleet-webhook-outage.json',
    );

    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toMatch(/^dev-a\/webhook-blackhole\/\S+: resolved/);
    expect(replayed.stdout).toMatch(/fires when .* in 2 of the last 3 samples/);
    expect(replayed.stdout).toMatch(/2025-02-14T09:16:00Z {2}page \(opened\) to paging topic: delivered/);
    expect(replayed.stdout).toMatch(/2025-02-14T10:11:00Z {2}resolve \(resolved\) to paging topic: delivered/);
  });
});
