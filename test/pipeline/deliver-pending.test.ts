import { isoSeconds } from '../../shared/engine/notification.ts';
import { MemoryIncidentStore } from '../../shared/pipeline/memory-store.ts';
import { deliverPending } from '../../shared/pipeline/poll.ts';
import { notificationAt } from '../support/engine-fixtures.ts';

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
