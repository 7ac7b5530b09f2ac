import { beforeEach, describe, expect, it } from '@jest/globals';
import { INCIDENTS_PER_MARK } from '../../shared/pipeline/apply-step.ts';
import type { PipelineStores } from '../../shared/pipeline/ports.ts';
import { StepUnfinishedError } from '../../shared/pipeline/step-claim.ts';
import { isoSeconds } from '../../shared/time.ts';
import { notificationAt, openIncident } from './engine-fixtures.ts';

/** Stores over a fresh, empty state, on a clock the contract moves. */
export type FreshStores = (now: () => number) => Promise<PipelineStores>;

const START = Date.parse('2026-11-20T10:00:00Z');
const LEASE_MS = 60_000;

/**
 * The contract of the step ledger and the outbox's delivery claim, run against the memory stores (unit project) and
 * the DynamoDB stores on dynalite (integration project), so that replay claims as production claims.
 */
export function storeContract(name: string, fresh: FreshStores): void {
  describe(`${name}: the step ledger and delivery claims`, () => {
    let now = START;
    let stores: PipelineStores;
    const step = (minutes: number) => START - 180_000 + minutes * 60_000;

    beforeEach(async () => {
      now = START;
      stores = await fresh(() => now);
    });

    it('claims a step no one holds, and answers done to a later claim of it once recorded', async () => {
      expect(await stores.ledger.claimStep(step(0), 'a', now + LEASE_MS)).toBe('claimed');
      await stores.ledger.recordStep({ at: step(0), changed: [], notifications: [] }, 'a');

      expect(await stores.ledger.claimStep(step(0), 'b', now + LEASE_MS)).toBe('done');
    });

    it('answers stale to a claim of a step older than the one done', async () => {
      await stores.ledger.claimStep(step(1), 'a', now + LEASE_MS);
      await stores.ledger.recordStep({ at: step(1), changed: [], notifications: [] }, 'a');

      expect(await stores.ledger.claimStep(step(0), 'b', now + LEASE_MS)).toBe('stale');
    });

    it('answers busy to another owner while the step is leased', async () => {
      await stores.ledger.claimStep(step(0), 'a', now + LEASE_MS);

      expect(await stores.ledger.claimStep(step(0), 'b', now + LEASE_MS)).toBe('busy');
    });

    it('answers busy to another owner claiming the next step while the step before it is leased', async () => {
      await stores.ledger.claimStep(step(0), 'a', now + LEASE_MS);

      expect(await stores.ledger.claimStep(step(1), 'b', now + LEASE_MS)).toBe('busy');
    });

    it('lets another owner take the next step once the lease of the unfinished one has run out', async () => {
      await stores.ledger.claimStep(step(0), 'a', now + LEASE_MS);
      now += LEASE_MS + 1;

      expect(await stores.ledger.claimStep(step(1), 'b', now + LEASE_MS)).toBe('claimed');
    });

    it('lets the owner of a step claim it again (its own retry)', async () => {
      await stores.ledger.claimStep(step(0), 'a', now + LEASE_MS);

      expect(await stores.ledger.claimStep(step(0), 'a', now + LEASE_MS)).toBe('claimed');
    });

    it('leaves a step out of time unfinished with its page queued, and the next claim saves its incidents first', async () => {
      const page = notificationAt({ at: isoSeconds(step(0)), kind: 'page', rule: 'webhook-blackhole' });
      const incidents = Array.from({ length: INCIDENTS_PER_MARK + 50 }, (_, i) =>
        openIncident(`fleet-${i}`, 'webhook-blackhole', 0),
      );
      await stores.ledger.claimStep(step(0), 'a', now + LEASE_MS);
      const stopped = stores.ledger.recordStep(
        { at: step(0), changed: incidents, notifications: [page] },
        'a',
        undefined,
        now,
      );
      await expect(stopped).rejects.toThrow(StepUnfinishedError);
      const queued = (await stores.outbox.pending()).map((p) => p.notification.id);
      const openBefore = (await stores.incidents.openIncidents()).length;
      // Within the lease it let go of: the next poll does not wait for it.
      now += 1_000;
      const claim = await stores.ledger.claimStep(step(1), 'b', now + LEASE_MS);
      const openAfter = (await stores.incidents.openIncidents()).length;

      expect([queued, openBefore, claim, openAfter]).toEqual([[page.id], 0, 'claimed', incidents.length]);
      expect(await stores.ledger.claimStep(step(0), 'c', now + LEASE_MS)).toBe('done');
    });

    it('stops after the batch its time allows, and the next claim saves only the rest, from the mark', async () => {
      const incidents = Array.from({ length: INCIDENTS_PER_MARK + 50 }, (_, i) =>
        openIncident(`fleet-${i}`, 'webhook-blackhole', 0),
      );
      const writeUntil = now + 10_000;
      // The first batch takes all the time there is: it is saved and marked, and no second one starts.
      const saved: number[] = [];
      const save = stores.incidents.save.bind(stores.incidents);
      stores.incidents.save = async (batch, at) => {
        await save(batch, at);
        saved.push(batch.length);
        now = writeUntil;
      };
      await stores.ledger.claimStep(step(0), 'a', now + LEASE_MS);
      const stopped = await stores.ledger
        .recordStep({ at: step(0), changed: incidents, notifications: [] }, 'a', undefined, writeUntil)
        .catch((error: unknown) => error);
      const claim = await stores.ledger.claimStep(step(1), 'b', now + LEASE_MS);

      expect(stopped).toMatchObject({ unfinished: { step: step(0), saved: INCIDENTS_PER_MARK, changed: 300 } });
      expect([saved, claim, (await stores.incidents.openIncidents()).length]).toEqual([
        [INCIDENTS_PER_MARK, 50],
        'claimed',
        300,
      ]);
    });

    it('lets go of its own claim only, when it stops on a step another owner has taken since', async () => {
      const incidents = [openIncident('dev-a', 'webhook-blackhole', 0)];
      await stores.ledger.claimStep(step(0), 'b', now + LEASE_MS);
      const stopped = stores.ledger.recordStep(
        { at: step(0), changed: incidents, notifications: [] },
        'a',
        undefined,
        now,
      );
      await expect(stopped).rejects.toThrow(StepUnfinishedError);

      expect(await stores.ledger.claimStep(step(0), 'c', now + LEASE_MS)).toBe('busy');
    });

    it('says a roll-forward ran out of time rather than claim the next step, and a later claim finishes it', async () => {
      const incidents = [openIncident('dev-a', 'webhook-blackhole', 0)];
      await stores.ledger.claimStep(step(0), 'a', now + LEASE_MS);
      await expect(
        stores.ledger.recordStep({ at: step(0), changed: incidents, notifications: [] }, 'a', undefined, now),
      ).rejects.toThrow(StepUnfinishedError);
      const outOfTime = stores.ledger.claimStep(step(1), 'b', now + LEASE_MS, now);
      await expect(outOfTime).rejects.toThrow(StepUnfinishedError);
      const openBetween = (await stores.incidents.openIncidents()).length;
      now += 1_000;

      expect([openBetween, await stores.ledger.claimStep(step(1), 'c', now + LEASE_MS)]).toEqual([0, 'claimed']);
      expect((await stores.incidents.openIncidents()).map((i) => i.id)).toEqual(incidents.map((i) => i.id));
    });

    it('gives a notification to one sender until its lease runs out, then to the next', async () => {
      const page = notificationAt({ at: isoSeconds(step(0)), kind: 'page', rule: 'webhook-blackhole' });
      await stores.outbox.enqueue([page]);
      const first = await stores.outbox.claimDelivery(page.id, 'a', now + LEASE_MS);
      const during = await stores.outbox.claimDelivery(page.id, 'b', now + LEASE_MS);
      now += LEASE_MS;
      const atLeaseEnd = await stores.outbox.claimDelivery(page.id, 'b', now + LEASE_MS);
      now += 1;
      const after = await stores.outbox.claimDelivery(page.id, 'b', now + LEASE_MS);

      expect([first, during, atLeaseEnd, after]).toEqual([true, false, false, true]);
    });

    it('never gives a delivered notification to a sender again', async () => {
      const page = notificationAt({ at: isoSeconds(step(0)), kind: 'page', rule: 'webhook-blackhole' });
      await stores.outbox.enqueue([page]);
      await stores.outbox.claimDelivery(page.id, 'a', now + LEASE_MS);
      await stores.outbox.markDelivered(page.id, 'm-1', now);
      now += 2 * LEASE_MS;

      expect(await stores.outbox.claimDelivery(page.id, 'b', now + LEASE_MS)).toBe(false);
    });
  });
}
