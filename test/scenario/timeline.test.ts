import { type ReplayResult, replayScenario } from '../../shared/scenario/replay.ts';
import { parseScenario } from '../../shared/scenario/scenario.ts';
import { renderTimeline, replayJsonLines } from '../../shared/scenario/timeline.ts';
import {
  defaultRuleSet,
  ERRORS_ONLY_SIGNALS,
  replayShipped,
  replaySignals,
  scenarioJson,
} from '../support/engine-fixtures.ts';

describe('replay output of the OPA webhook outage', () => {
  let result: ReplayResult;
  let lines: string[];
  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  beforeAll(async () => {
    result = await replayShipped('opa-webhook-outage');
    lines = replayJsonLines(result);
  });

  describe('replayJsonLines', () => {
    it('prints one JSON object per notification', () => {
      expect(lines).toHaveLength(result.notifications.length);
    });

    it('puts every field of scenario format v1 in each object', () => {
      const fields = ['at', 'kind', 'cluster', 'rule', 'severity', 'incident', 'title', 'symptoms', 'hints'];
      const missing = parsed().flatMap((object, index) =>
        fields.filter((field) => !(field in object)).map((field) => `line ${index + 1}: ${field}`),
      );

      expect(missing).toEqual([]);
    });

    it('writes the page as its cluster, rule, severity and incident', () => {
      const page = result.notifications.find((n) => n.kind === 'page');
      const object = parsed().find((o) => o.kind === 'page');

      expect(object).toMatchObject({
        at: page?.at,
        cluster: 'dev-euw1',
        rule: 'webhook-blackhole',
        severity: 'critical',
        incident: page?.incidents[0],
        title: 'Admission webhook is black-holing API writes on dev-euw1',
      });
    });

    it('writes hints as text that names their source', () => {
      const hints = parsed().find((o) => o.kind === 'page')?.hints as string[];

      // Each hint's first line ends with its source in parentheses; its commands, if any, follow on lines of their own.
      expect([
        hints.every((hint) => typeof hint === 'string' && /\(.+\)$/.test(hint.split('\n')[0] ?? '')),
        hints.some((hint) => hint.includes('(Jetstack post-mortem')),
      ]).toEqual([true, true]);
    });

    it('writes the symptoms of each update as rule ids', () => {
      expect(
        parsed()
          .filter((o) => o.kind === 'update')
          .map((o) => o.symptoms),
      ).toEqual([['nodes-notready-at-scale'], ['nodes-notready-at-scale', 'node-repair-storm']]);
    });

    it('prints the objects in time order', () => {
      const times = parsed().map((o) => String(o.at));

      expect(times).toEqual([...times].sort());
    });
  });

  describe('renderTimeline', () => {
    it('prints the detection latency under the page', () => {
      expect(renderTimeline(result)).toMatch(
        /PAGE {6}Admission webhook is black-holing API writes on dev-euw1\n {20}detected [0-3] min after onset\n/,
      );
    });

    it('summarises what was sent and how the expectations went', () => {
      expect(renderTimeline(result)).toContain(
        'Sent: 1 page, 1 ticket, 2 update, 2 resolve.\nExpectations: 7 passed, 0 failed.',
      );
    });

    it('names the scenario, its file and the stretch of time replayed', () => {
      expect(renderTimeline(result).split('\n')[0]).toBe(
        'Scenario opa-webhook-outage (scenarios/opa-webhook-outage.json)',
      );
    });
  });
});

describe('renderTimeline', () => {
  it('names each rule that runs without some of its signals, and each rule skipped, with what it lacks', async () => {
    const lines = renderTimeline(await replaySignals(ERRORS_ONLY_SIGNALS)).split('\n');

    expect(lines).toEqual(
      expect.arrayContaining([
        'Coverage: control-plane-degraded on dev-a: partial, runs without webhook.p99, apiserver.429, webhook.failures, webhook.requests, webhook.rejections.',
        'Coverage: webhook-latency-tax on dev-a: skipped, no webhook.p99.',
      ]),
    );
  });

  it('says so when nothing would have been sent', async () => {
    const scenario = parseScenario(
      scenarioJson({ clusters: { 'dev-a': { signals: { 'apiserver.write.p99': '0.2*5' } } } }),
      'quiet.json',
    );
    const result = await replayScenario(scenario, { ruleSet: defaultRuleSet() });

    expect(renderTimeline(result)).toContain('Nothing would have been sent.');
  });

  it('marks a failed expectation and says why', async () => {
    const scenario = parseScenario(
      scenarioJson({
        clusters: { 'dev-a': { signals: { 'apiserver.write.p99': '0.2*5' } } },
        expect: [{ cluster: 'dev-a', kind: 'page' }],
      }),
      'quiet.json',
    );
    const result = await replayScenario(scenario, { ruleSet: defaultRuleSet() });

    expect(renderTimeline(result)).toContain('  FAIL page on dev-a: expected at least one, got none');
  });
});
