import { buildPlan } from '../../shared/pipeline/build-plan.ts';
import { MemoryIncidentStore } from '../../shared/pipeline/memory-store.ts';
import { deliverPending, runPoll } from '../../shared/pipeline/poll.ts';
import { isoSeconds } from '../../shared/time.ts';
import { defaultRuleSet, notificationAt } from '../support/engine-fixtures.ts';

/** A store whose bookkeeping fails right after SNS accepted the message. */
class ForgetfulStore extends MemoryIncidentStore {
  override async markDelivered(): Promise<void> {
    throw new Error('ProvisionedThroughputExceededException');
  }
}

describe('deliverPending', () => {
  it('never hands a published notification back to the outbox when recording it fails', async () => {
    const now = () => Date.parse('2026-11-20T10:00:00Z');
    const store = new ForgetfulStore(now);
    const page = notificationAt({ at: isoSeconds(now()), kind: 'page', rule: 'webhook-blackhole' });
    await store.recordStep(now(), 'test', [], [page]);
    const published: string[] = [];
    const deps = {
      store,
      notifier: {
        publish: async (n: { id: string }) => {
          published.push(n.id);
          return { messageId: 'm-1' };
        },
      },
      owner: 'test',
      now,
      leaseMs: 60_000,
    };

    const first = await deliverPending(deps);
    await deliverPending(deps);

    expect([published, first.failed.map((f) => f.error)]).toEqual([
      [page.id],
      [expect.stringMatching(/^published \(m-1\) but not recorded: /)],
    ]);
  });
});

describe('runPoll', () => {
  it('records a poll whose step failed, then fails', async () => {
    const at = Date.parse('2026-11-20T10:00:00Z');
    const store = new MemoryIncidentStore(() => at);
    const plan = buildPlan({ ruleSet: defaultRuleSet(), clusters: ['dev-a'], maintenance: [], stepSeconds: 60 });
    const deps = {
      plan,
      store,
      metrics: {
        read: async () => {
          throw new Error('AccessDeniedException: not authorized to perform cloudwatch:GetMetricData');
        },
      },
      notifier: { publish: async () => ({ messageId: 'unused' }) },
      tripwires: { armed: async () => new Set<string>() },
      pollEveryCluster: true,
      owner: 'test',
      now: () => at,
      leaseMs: 60_000,
    };

    await expect(runPoll(deps, at)).rejects.toThrow('AccessDeniedException');
    const { polls } = await store.activityBetween(at, at + 1);

    expect(polls.map((p) => p.error)).toEqual([
      'Error: AccessDeniedException: not authorized to perform cloudwatch:GetMetricData',
    ]);
  });
});
