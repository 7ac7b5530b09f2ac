import { compileRuleSet } from '../../shared/config/deployment-config.ts';
import type { Incident } from '../../shared/engine/incident.ts';
import { buildPlan } from '../../shared/pipeline/build-plan.ts';
import { memoryStores } from '../../shared/pipeline/memory-stores.ts';
import { runPoll } from '../../shared/pipeline/poll.ts';
import { retiredClusterNote, retiredRuleNote } from '../../shared/pipeline/retired-clusters.ts';
import { CollectingNotifier } from '../../shared/scenario/replay.ts';
import { minuteMs, openIncident, pagedAt } from '../support/engine-fixtures.ts';

/** One poll at `minute` of a plan watching `clusters`, over stores holding `open` incidents. */
async function pollWith(clusters: string[], open: Incident[], minute: number) {
  const now = minuteMs(minute);
  const stores = memoryStores(() => now);
  await stores.incidents.save(open, now - 60_000);
  const notifier = new CollectingNotifier();
  const report = await runPoll(
    {
      plan: buildPlan({ ruleSet: compileRuleSet([], 'rules'), clusters, maintenance: [], stepSeconds: 60 }),
      metrics: { read: async () => ({ windows: new Map(), metricsRequested: 0, unreadable: [] }) },
      ...stores,
      notifier,
      tripwires: { armed: async () => ({ byAlarm: new Set(), byNodeChurn: new Set() }) },
      owner: 'test',
      now: () => now,
      leaseMs: 60_000,
    },
    now,
  );
  return { report, notifier, open: await stores.incidents.openIncidents() };
}

describe('a change of the configuration while incidents are open', () => {
  it('resolves the incident of a cluster removed from the configuration at the next poll, saying why', async () => {
    const page = pagedAt(openIncident('dev-a', 'webhook-blackhole', 0), 1);

    const { notifier, open } = await pollWith(['dev-b'], [page], 60);

    expect(open).toEqual([]);
    expect(notifier.sent.map((n) => [n.kind, n.clusters, n.changes])).toEqual([
      ['resolve', ['dev-a'], [retiredClusterNote('dev-a')]],
    ]);
  });

  it('resolves the incident of a rule removed from the configuration, naming the rule as no longer configured', async () => {
    const page = pagedAt(openIncident('dev-a', 'custom-rule-gone', 0), 1);

    const { notifier, open } = await pollWith(['dev-a'], [page], 60);

    expect(open).toEqual([]);
    expect(notifier.sent.map((n) => [n.kind, n.title, n.changes])).toEqual([
      ['resolve', expect.stringContaining('no longer configured'), [retiredRuleNote('custom-rule-gone', 'dev-a')]],
    ]);
  });
});
