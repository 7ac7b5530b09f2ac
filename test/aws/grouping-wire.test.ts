import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../shared/config/deployment-config.ts';
import type { Notification } from '../../shared/engine/notification.ts';
import { replayScenario } from '../../shared/scenario/replay.ts';
import type { Scenario } from '../../shared/scenario/scenario.ts';
import { type AwsHarness, putScenario, startAwsHarness } from '../../support/aws-harness.ts';
import { type CapturedOutput, captureOutput } from '../../support/captured-output.ts';
import { monotonicFollowsArrivals } from '../../support/handler-clock.ts';
import { harnessClusters, loadPoller, pollAt, trimmedScenario } from '../../support/poller-harness.ts';

/*
 * Grouping by label on the wire: the real poller handler, DynamoDB on dynalite, loopback CloudWatch and SNS, with a
 * configuration that labels the clusters staging and prod and groups by environment. The staging outage starts at
 * +75m, prod's 13 minutes later; the test polls from +70m until both have resolved.
 */
const FROM_STEP = 70;
const STEPS = 80;

let harness: AwsHarness;
let output: CapturedOutput;
let scenario: Scenario;
let replayed: readonly Notification[];

const sent = () =>
  harness.sns.published.map((p) => JSON.parse((JSON.parse(p.message) as { default: string }).default) as Notification);
const pages = () => sent().filter((n) => n.kind === 'page');

beforeAll(async () => {
  // The minute between two polls passes for the poller's quota pacers and the fakes' quota meters too, as in Lambda.
  monotonicFollowsArrivals();
  output = captureOutput();
  harness = await startAwsHarness();
  scenario = trimmedScenario('scenarios/staging-then-prod-webhook-outages.json', FROM_STEP);
  const clusters = harnessClusters([...scenario.clusters.keys()]).map((cluster) => ({
    ...cluster,
    labels: { environment: cluster.name.split('-')[0] ?? '' },
  }));
  await putScenario(scenario, clusters);
  const extra = { poll: { every: '1m' }, grouping: { by: ['environment'] } };
  const poll = await loadPoller(harness, clusters, extra);
  const { config, ruleSet } = loadConfig({ clusters, ...extra }, 'test config');
  replayed = (await replayScenario({ ...scenario, steps: STEPS }, { ruleSet, config })).notifications;
  for (let step = 0; step < STEPS; step++) await pollAt(poll, scenario.start + step * 60_000);
}, 240_000);

afterAll(async () => {
  output.restore();
  await harness.close();
});

describe('grouping by environment over the real wire', () => {
  it('pages staging and prod once each, under different dedup keys', () => {
    expect(pages().map((n) => n.clusters)).toEqual([['staging-euw1'], ['prod-euw1']]);
    expect(new Set(pages().map((n) => n.group)).size).toBe(2);
  });

  it('sends the staging cluster that joins as an update of the staging page', () => {
    const [staging] = pages();

    expect(
      sent()
        .filter((n) => n.reason === 'joined')
        .map((n) => [n.changes, n.group]),
    ).toEqual([[['joined: staging-use1'], staging?.group]]);
  });

  it('publishes exactly what the replay of the same configuration sends', () => {
    expect(sent().map((n) => n.id)).toEqual(replayed.map((n) => n.id));
  });
});
