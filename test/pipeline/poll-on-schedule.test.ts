import { describe, expect, it } from '@jest/globals';
import { pollOnSchedule } from '../../functions/poller/poll-on-schedule.ts';
import { buildPlan } from '../../shared/pipeline/build-plan.ts';
import { memoryStores } from '../../shared/pipeline/memory-stores.ts';
import type { AfterQueued, StepOutcome } from '../../shared/pipeline/ports.ts';
import { defaultRuleSet, openIncident, pagedAt } from '../support/engine-fixtures.ts';

const AT = Date.parse('2026-11-20T10:00:00Z');

describe('pollOnSchedule', () => {
  it('says in its summary and a warning how far it saved a step it ran out of time for', async () => {
    // Scheduled after the ingestion lag of 2 minutes and the minute itself; no time left to write.
    const startedAt = AT + 180_000;
    const stores = memoryStores(() => startedAt);
    const changed = [pagedAt(openIncident('dev-a', 'webhook-blackhole', 0), 0)];
    const ledger = {
      claimStep: stores.ledger.claimStep.bind(stores.ledger),
      recordStep: (outcome: StepOutcome, owner: string, afterQueued?: AfterQueued, writeUntil?: number) =>
        stores.ledger.recordStep({ ...outcome, changed }, owner, afterQueued, writeUntil),
    };
    const warnings: unknown[][] = [];

    const summary = await pollOnSchedule(
      {
        plan: buildPlan({ ruleSet: defaultRuleSet(), clusters: ['dev-a'], maintenance: [], stepSeconds: 60 }),
        metrics: { read: async () => ({ windows: new Map(), metricsRequested: 0, unreadable: [] }) },
        ...stores,
        ledger,
        notifier: { publish: async () => ({ messageId: 'm-1' }) },
        tripwires: { armed: async () => ({ byAlarm: new Set<string>(), byNodeChurn: new Set<string>() }) },
        pollEveryCluster: true,
        owner: 'test',
        now: () => startedAt,
        leaseMs: 60_000,
        writeUntil: startedAt,
        ingestionLag: '2m',
        logger: { error: () => {}, debug: () => {}, warn: (...args: unknown[]) => void warnings.push(args) },
        pipelineMetrics: { addMetric: () => {} },
        dashboard: false,
      },
      { kind: 'poll', scheduledTime: new Date(startedAt).toISOString() },
    );

    const unfinished = { step: new Date(AT).toISOString(), saved: 0, changed: 1 };
    expect(summary).toMatchObject({ claim: 'claimed', unfinished });
    expect(warnings).toEqual([
      ['out of time saving the step: the next poll saves the rest of its incidents', unfinished],
    ]);
  });
});
