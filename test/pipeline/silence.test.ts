import { describe, expect, it } from '@jest/globals';
import { MemorySilences } from '../../shared/pipeline/memory-silences.ts';
import {
  expiredSilence,
  newSilence,
  type Silence,
  SilenceError,
  silencesDuring,
  silencesForStep,
} from '../../shared/pipeline/silence.ts';

const AT = Date.parse('2026-11-23T10:00:00Z');
const MINUTE = 60_000;
const ALICE = 'arn:aws:sts::111122223333:assumed-role/Ops/alice';
const CONTEXT = { id: 'a1b2c3d4', at: AT, author: ALICE };
const REQUEST = { cluster: 'prod-euw1', for: '2h', reason: 'EKS 1.31 upgrade' };

const silence = (fields: Partial<Silence> = {}): Silence => ({
  id: 'a1b2c3d4',
  cluster: 'prod-euw1',
  from: AT,
  to: AT + 120 * MINUTE,
  reason: 'EKS 1.31 upgrade',
  author: ALICE,
  ...fields,
});

const problemsOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    if (error instanceof SilenceError) return error.message;
    throw error;
  }
  return '';
};

describe('a new silence', () => {
  it('holds from now for the duration asked, on the cluster and the rule asked, by the caller', () => {
    expect(newSilence({ ...REQUEST, rule: 'webhook-latency-tax' }, CONTEXT)).toEqual(
      silence({ rule: 'webhook-latency-tax' }),
    );
  });

  it('names every wrong part of the request at once: cluster, rule, duration and reason', () => {
    const message = problemsOf(() =>
      newSilence(
        { cluster: 'prod-euw9', rule: 'webhook-slow', for: '2 hours', reason: '  ' },
        { ...CONTEXT, clusters: ['prod-euw1', 'prod-euw2'], rules: ['webhook-blackhole', 'webhook-latency-tax'] },
      ),
    );

    expect(message.split('\n')).toEqual([
      'cannot add the silence:',
      '  - --cluster "prod-euw9" is not a cluster of the configuration, which has prod-euw1, prod-euw2',
      '  - --rule "webhook-slow" is not a rule of the configuration, which has webhook-blackhole, webhook-latency-tax',
      '  - --for "2 hours" is not a duration: write a number and a unit, like 30m, 2h or 1d',
      '  - --reason says nothing: say why, for whoever reads the digest',
    ]);
  });

  it.each([
    ['30s', 'expected at least 1m'],
    ['8d', 'expected at most 7d'],
  ])('refuses to last %s', (duration, expected) => {
    expect(problemsOf(() => newSilence({ ...REQUEST, for: duration }, CONTEXT))).toContain(expected);
  });

  it('accepts any cluster and rule name when no configuration is given to check them against', () => {
    expect(newSilence({ ...REQUEST, cluster: 'anything' }, CONTEXT).cluster).toBe('anything');
  });
});

describe('silences in time', () => {
  it('ends an expired silence at the time it was expired, saying by whom', () => {
    expect(expiredSilence(silence(), AT + 30 * MINUTE, 'bob')).toEqual(
      silence({ to: AT + 30 * MINUTE, expired: { at: AT + 30 * MINUTE, by: 'bob' } }),
    );
  });

  it('refuses to expire a silence that has already ended', () => {
    expect(problemsOf(() => expiredSilence(silence(), AT + 121 * MINUTE, 'bob'))).toMatch(/already ended/);
  });

  it('lists the silences that hold at any time of a period', () => {
    const before = silence({ id: 'before', to: AT - MINUTE, from: AT - 60 * MINUTE });
    const during = silence({ id: 'during' });
    const after = silence({ id: 'after', from: AT + 200 * MINUTE, to: AT + 300 * MINUTE });

    expect(silencesDuring([before, during, after], AT, AT + 100 * MINUTE).map((s) => s.id)).toEqual(['during']);
  });

  it('applies a silence added a minute ago to the step read now, whose data is minutes older', () => {
    const justAdded = silence({ from: AT });
    const ended = silence({ id: 'ended', from: AT - 60 * MINUTE, to: AT - MINUTE / 2 });

    expect(silencesForStep([justAdded, ended], AT - 3 * MINUTE, AT + MINUTE)).toEqual([
      { ...justAdded, from: AT - 3 * MINUTE },
    ]);
  });
});

describe('the silences in memory', () => {
  it('adds, lists the ones still to end, and expires by id', async () => {
    const store = new MemorySilences();
    await store.add(silence());
    await store.add(silence({ id: 'old', from: AT - 120 * MINUTE, to: AT - MINUTE }));

    const listed = (await store.endingAfter(AT)).map((s) => s.id);
    const expired = await store.expire('a1b2c3d4', AT + MINUTE, 'bob');
    const again = await store.expire('a1b2c3d4', AT + 2 * MINUTE, 'bob');

    expect([listed, expired?.to, again, await store.endingAfter(AT + 2 * MINUTE)]).toEqual([
      ['a1b2c3d4'],
      AT + MINUTE,
      undefined,
      [],
    ]);
  });

  it('refuses a second silence with the same id', async () => {
    const store = new MemorySilences();
    await store.add(silence());

    await expect(store.add(silence())).rejects.toThrow(SilenceError);
  });
});
