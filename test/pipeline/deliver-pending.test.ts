import { buildPlan } from '../../shared/pipeline/build-plan.ts';
import { MemoryIncidentRepository } from '../../shared/pipeline/memory-incident-repository.ts';
import { MemoryOutbox } from '../../shared/pipeline/memory-outbox.ts';
import { MemoryStepLedger } from '../../shared/pipeline/memory-step-ledger.ts';
import { memoryStores } from '../../shared/pipeline/memory-stores.ts';
import { deliverPending, runPoll } from '../../shared/pipeline/poll.ts';
import type { AfterQueued, PendingNotification, StepOutcome } from '../../shared/pipeline/ports.ts';
import { isoSeconds } from '../../shared/time.ts';
import { defaultRuleSet, notificationAt, openIncident, pagedAt } from '../support/engine-fixtures.ts';

/** An outbox whose bookkeeping fails right after SNS accepted the message. */
class ForgetfulOutbox extends MemoryOutbox {
  override async markDelivered(): Promise<void> {
    throw new Error('ProvisionedThroughputExceededException');
  }
}

/** An outbox whose listing lags its writes, as DynamoDB's eventually consistent index does. */
class LaggingOutbox extends MemoryOutbox {
  override async pending(): Promise<PendingNotification[]> {
    return [];
  }
}

const now = () => Date.parse('2026-11-20T10:00:00Z');
const page = notificationAt({ at: isoSeconds(now()), kind: 'page', rule: 'webhook-blackhole' });
const collecting = (published: string[]) => ({
  publish: async (n: { id: string }) => {
    published.push(n.id);
    return { messageId: `m-${published.length}` };
  },
});

/** An outbox holding one page, and a notifier that records what it publishes. */
async function withPage(outbox: MemoryOutbox) {
  await outbox.enqueue([page]);
  const published: string[] = [];
  return { published, deps: { outbox, notifier: collecting(published), owner: 'test', now, leaseMs: 60_000 } };
}

describe('deliverPending', () => {
  it('never hands a published notification back to the outbox when recording it fails', async () => {
    const { published, deps } = await withPage(new ForgetfulOutbox(now));

    const first = await deliverPending(deps);
    await deliverPending(deps);

    expect([published, first.failed.map((f) => f.error)]).toEqual([
      [page.id],
      [expect.stringMatching(/^published \(m-1\) but not recorded: /)],
    ]);
  });

  it('delivers what the step just committed though the outbox does not list it yet', async () => {
    const { published, deps } = await withPage(new LaggingOutbox(now));

    const unlisted = await deliverPending(deps);
    const committed = await deliverPending(deps, [page]);

    expect([unlisted.delivered, committed.delivered.map((n) => n.id), published]).toEqual([[], [page.id], [page.id]]);
  });
});

describe('runPoll', () => {
  const plan = buildPlan({ ruleSet: defaultRuleSet(), clusters: ['dev-a'], maintenance: [], stepSeconds: 60 });
  const quiet = {
    plan,
    metrics: { read: async () => ({ windows: new Map(), metricsRequested: 0, unreadable: [] }) },
    tripwires: { armed: async () => ({ byAlarm: new Set<string>(), byNodeChurn: new Set<string>() }) },
    pollEveryCluster: true,
    owner: 'test',
    now,
    leaseMs: 60_000,
  };

  it('records a poll whose step failed, then fails', async () => {
    const at = now();
    const stores = memoryStores(now);
    const deps = {
      ...quiet,
      ...stores,
      metrics: {
        read: async () => {
          throw new Error('AccessDeniedException: not authorized to perform cloudwatch:GetMetricData');
        },
      },
      notifier: { publish: async () => ({ messageId: 'unused' }) },
    };

    await expect(runPoll(deps, at)).rejects.toThrow('AccessDeniedException');
    const { polls } = await stores.activityLog.activityBetween(at, at + 1);

    expect(polls.map((p) => p.error)).toEqual([
      'Error: AccessDeniedException: not authorized to perform cloudwatch:GetMetricData',
    ]);
  });

  it('pages before it writes the step’s incidents, so that a throttled incident partition does not hold the page', async () => {
    const stores = memoryStores(now);
    const order: string[] = [];
    const incidents = new MemoryIncidentRepository();
    incidents.save = async () => {
      order.push('save incidents');
      throw new Error('ProvisionedThroughputExceededException: Throughput exceeds the current capacity');
    };
    const inner = new MemoryStepLedger(now, { incidents, outbox: stores.outbox });
    // The step raises a page and opens an incident, as a fleet outage does on every cluster.
    const ledger = {
      claimStep: inner.claimStep.bind(inner),
      recordStep: (outcome: StepOutcome, owner: string, afterQueued?: AfterQueued) =>
        inner.recordStep(
          { ...outcome, notifications: [page], changed: [openIncident('dev-a', 'webhook-blackhole', 0)] },
          owner,
          afterQueued,
        ),
    };
    const notifier = {
      publish: async (n: { id: string }) => {
        order.push(`publish ${n.id}`);
        return { messageId: 'm-1' };
      },
    };

    await expect(runPoll({ ...quiet, ...stores, ledger, notifier }, now())).rejects.toThrow(
      'ProvisionedThroughputExceededException',
    );

    expect(order).toEqual([`publish ${page.id}`, 'save incidents']);
  });

  it('delivers in the same poll the notifications its ledger committed, before the outbox lists them', async () => {
    const stores = memoryStores(now);
    const outbox = new LaggingOutbox(now);
    // What the ledger commits can be another invocation's outcome of the step, not this one's.
    const ledger = {
      claimStep: stores.ledger.claimStep.bind(stores.ledger),
      recordStep: async () => {
        await outbox.enqueue([page]);
        return [page];
      },
    };
    const published: string[] = [];

    const report = await runPoll({ ...quiet, ...stores, ledger, outbox, notifier: collecting(published) }, now());

    expect([report.created, report.delivered.map((n) => n.id), published]).toEqual([[], [page.id], [page.id]]);
  });

  it('pages, records its poll and returns when its time runs out saving the step; the next poll saves the rest', async () => {
    let clock = now();
    const stores = memoryStores(() => clock);
    const at = now();
    const fleet = Array.from({ length: 300 }, (_, i) => `fleet-${i}`);
    const incidents = fleet.map((cluster) => pagedAt(openIncident(cluster, 'webhook-blackhole', 0), 0));
    // The step pages a fleet outage and opens an incident on each of 300 clusters.
    const ledger = {
      claimStep: stores.ledger.claimStep.bind(stores.ledger),
      recordStep: (outcome: StepOutcome, owner: string, afterQueued?: AfterQueued, writeUntil?: number) =>
        stores.ledger.recordStep(
          outcome.at === at ? { ...outcome, notifications: [page], changed: incidents } : outcome,
          owner,
          afterQueued,
          writeUntil,
        ),
    };
    const published: string[] = [];
    const fleetPlan = buildPlan({ ruleSet: defaultRuleSet(), clusters: fleet, maintenance: [], stepSeconds: 60 });
    // A lease longer than a minute: the next poll takes the step only because the first let go of it.
    const deps = {
      ...quiet,
      ...stores,
      plan: fleetPlan,
      ledger,
      notifier: collecting(published),
      now: () => clock,
      leaseMs: 120_000,
    };

    const first = await runPoll({ ...deps, writeUntil: clock }, at);
    const openAfterFirst = (await stores.incidents.openIncidents()).length;
    clock += 60_000;
    // The next poll has no time either: its roll-forward stops, and it does not evaluate its own step.
    const second = await runPoll({ ...deps, owner: 'second', writeUntil: clock }, at + 60_000);
    clock += 60_000;
    const third = await runPoll({ ...deps, owner: 'third' }, at + 120_000);
    const openAfterThird = (await stores.incidents.openIncidents()).length;
    const { polls } = await stores.activityLog.activityBetween(at, at + 120_001);

    const stopped = { step: at, saved: 0, changed: 300 };
    expect([first.unfinished, second.claim, second.unfinished, third.claim]).toEqual([
      stopped,
      'busy',
      stopped,
      'claimed',
    ]);
    expect(polls.map((p) => [p.claim, p.unfinishedStep, p.error])).toEqual([
      ['claimed', stopped, undefined],
      ['busy', stopped, undefined],
      ['claimed', undefined, undefined],
    ]);
    // The later steps say what they say of 300 open incidents; what matters is that no page goes out twice.
    const pages = published.filter((id) => id.includes('/page/'));
    expect([pages, openAfterFirst, openAfterThird]).toEqual([[page.id], 0, 300]);
  });
});
