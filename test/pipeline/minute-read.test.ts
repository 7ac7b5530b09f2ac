import { compileRuleSet } from '../../shared/config/deployment-config.ts';
import { BLIND_AFTER_STEPS } from '../../shared/pipeline/blind-tripwires.ts';
import { buildPlan } from '../../shared/pipeline/build-plan.ts';
import { cadenceOffset, dueReads } from '../../shared/pipeline/cadence.ts';
import { memoryStores } from '../../shared/pipeline/memory-stores.ts';
import { runPoll } from '../../shared/pipeline/poll.ts';
import type { MetricRequest } from '../../shared/pipeline/ports.ts';
import { CollectingNotifier } from '../../shared/scenario/replay.ts';

const plan = buildPlan({
  ruleSet: compileRuleSet([], 'rules'),
  clusters: ['a', 'b', 'c'],
  maintenance: [],
  stepSeconds: 60,
});
const { everySteps } = plan.cadence;
/** A step at which cluster `a` is due on the slow cadence. */
const slotOfA = ((everySteps - cadenceOffset('a', everySteps)) % everySteps) * 60_000;

describe('the minute read', () => {
  it('reads each signal over the longest short window that reads it, far less than the full lookback', () => {
    // apiserver-sustained-errors' hour against the six before it.
    expect(plan.lookback).toBe(420);
    // webhook-blackhole's two minutes against the hour before, on the rejections and the 5xx only.
    expect(plan.minuteRead.lookback).toBe(62);
    expect(plan.minuteRead.signals.get('webhook.rejections')).toBe(62);
    expect(plan.minuteRead.signals.get('apiserver.5xx')).toBe(62);
    // node-repair-storm's loop: four minutes of repairs against the fifty-six before, and the NotReady share's peak of
    // the last half hour against the half hour before, inside the hour the read already spans (the churn counts come
    // from one query of the node-churn ledger over the whole read, not from CloudWatch); the tripwire's signals at
    // least as far as a blind tripwire is judged.
    expect(plan.minuteRead.signals.get('nodes.replaced')).toBe(60);
    expect(plan.minuteRead.signals.get('nodes.total')).toBe(60);
    expect(plan.minuteRead.signals.get('apiserver.write.p99')).toBeGreaterThanOrEqual(BLIND_AFTER_STEPS);
    expect(plan.minuteRead.signals.get('apiserver.write.p99')).toBeLessThanOrEqual(30);
  });

  it('evaluates the page-level rules and the short-window tickets, and leaves hours-long windows to the full read', () => {
    const minuteRules = plan.clusters[0]?.minuteRules.map((r) => r.rule.id);

    expect(minuteRules).toEqual(expect.arrayContaining(['webhook-blackhole', 'node-repair-storm', 'signals-missing']));
    expect(minuteRules).not.toEqual(
      expect.arrayContaining([expect.stringMatching(/^(webhook-latency-tax|webhook-availability-gaps|node-churn)$/)]),
    );
  });

  it('reads a cluster in full at its slow-cadence slot, armed or not, and by a minute read between', () => {
    const armed = new Set(['a', 'b']);

    const due = dueReads(plan, slotOfA, armed, []);

    expect(due.full).toContain('a');
    expect(due.minute).toContain('b');
    expect(due.minute).not.toContain('a');
  });

  it('asks the metric source for the full lookback and for the minute read side by side', async () => {
    const requests: MetricRequest[] = [];
    await runPoll(
      {
        plan,
        metrics: {
          read: async (request) => {
            requests.push(request);
            return { windows: new Map(), metricsRequested: 0, unreadable: [] };
          },
        },
        ...memoryStores(() => slotOfA),
        notifier: new CollectingNotifier(),
        tripwires: { armed: async () => ({ byAlarm: new Set(['a', 'b', 'c']), byNodeChurn: new Set() }) },
        owner: 'test',
        now: () => slotOfA,
        leaseMs: 60_000,
      },
      slotOfA,
    );

    const full = requests.find((r) => r.signals === undefined);
    const minute = requests.find((r) => r.signals !== undefined);
    expect(full).toMatchObject({ samples: 420 });
    expect(full?.clusters).toContain('a');
    expect(minute).toMatchObject({ samples: 62, signals: plan.minuteRead.signals });
    expect(minute?.clusters).not.toContain('a');
  });
});
