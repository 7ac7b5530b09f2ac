import { describe, expect, it } from '@jest/globals';
import { MemorySilences } from '../../shared/pipeline/memory-silences.ts';
import {
  expiredSilence,
  extendedSilence,
  newSilence,
  type Silence,
  SilenceError,
  silencesDuring,
  silencesForStep,
} from '../../shared/pipeline/silence.ts';

const AT = Date.parse('2026-11-23T10:00:00Z');
const MINUTE = 60_000;
const ALICE = 'arn:aws:sts::111122223333:assumed-role/Ops/alice';
const labels = (cluster: string, environment: string) => ({
  cluster,
  environment,
  account: '111122223333',
  region: 'eu-west-1',
});
const KNOWN = {
  clusters: [labels('prod-euw1', 'prod'), labels('prod-euw2', 'prod'), labels('staging-euw1', 'staging')],
  rules: ['webhook-blackhole', 'webhook-latency-tax', 'node-churn'],
};
const CONTEXT = { id: 'a1b2c3d4', at: AT, author: ALICE, known: KNOWN };
const REQUEST = { matchers: ['cluster=prod-euw1'], for: '2h', reason: 'EKS 1.31 upgrade' };
const onCluster = (cluster: string, ...more: { name: string; op: '=' | '!='; value: string }[]) => [
  { name: 'cluster', op: '=' as const, value: cluster },
  ...more,
];

const silence = (fields: Partial<Silence> = {}): Silence => ({
  id: 'a1b2c3d4',
  matchers: onCluster('prod-euw1'),
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
  it('holds from now for the duration asked, on what its matchers match, by the caller', () => {
    expect(newSilence({ ...REQUEST, matchers: ['cluster=prod-euw1', 'rule=webhook-latency-tax'] }, CONTEXT)).toEqual(
      silence({ matchers: onCluster('prod-euw1', { name: 'rule', op: '=', value: 'webhook-latency-tax' }) }),
    );
  });

  it('names every wrong part of the request at once, with the nearest known name', () => {
    const message = problemsOf(() =>
      newSilence(
        {
          matchers: ['cluster=prod-euw9', 'rule=webhook-slow', 'enviroment=staging', 'environment=stagign', 'team'],
          for: '2 hours',
          reason: '  ',
        },
        CONTEXT,
      ),
    );

    expect(message.split('\n')).toEqual([
      'cannot add the silence:',
      '  - --match cluster=prod-euw9: no cluster "prod-euw9" in the configuration: did you mean "prod-euw1"?',
      '  - --match rule=webhook-slow: no rule "webhook-slow": known: webhook-blackhole, webhook-latency-tax, node-churn',
      '  - --match enviroment=staging: no cluster has the label "enviroment": did you mean "environment"?',
      '  - --match environment=stagign: no cluster has environment="stagign" in the configuration: did you mean "staging"?',
      '  - --match "team" is not a matcher: write NAME=VALUE or NAME!=VALUE',
      '  - --for "2 hours" is not a duration: write a number and a unit, like 30m, 2h or 1d',
      '  - --reason says nothing: say why, for whoever reads the digest',
    ]);
  });

  it('refuses matchers that together match no cluster', () => {
    expect(
      problemsOf(() => newSilence({ ...REQUEST, matchers: ['cluster=prod-euw1', 'environment=staging'] }, CONTEXT)),
    ).toContain('matches no configured cluster');
  });

  it.each([
    ['30s', false, 'expected at least 1m'],
    ['8d', false, 'expected at most 7d'],
    ['5h', true, 'expected at most 4h, got 5h for a silence that includes pages'],
  ])('refuses to last %s (pages included: %s)', (duration, includePages, expected) => {
    expect(problemsOf(() => newSilence({ ...REQUEST, for: duration, includePages }, CONTEXT))).toContain(expected);
  });

  it('starts at --start, and never before now', () => {
    const later = newSilence({ ...REQUEST, start: '2026-11-23T12:00:00Z' }, CONTEXT);
    const earlier = newSilence({ ...REQUEST, start: '2026-11-23T08:00:00Z' }, CONTEXT);

    expect([later.from, later.to, earlier.from]).toEqual([AT + 120 * MINUTE, AT + 240 * MINUTE, AT]);
  });

  it('refuses a start more than a week ahead, or one that is not a time', () => {
    expect(problemsOf(() => newSilence({ ...REQUEST, start: '2026-12-23T12:00:00Z' }, CONTEXT))).toContain(
      'more than 7d ahead',
    );
    expect(problemsOf(() => newSilence({ ...REQUEST, start: 'tomorrow' }, CONTEXT))).toContain('is not a time');
  });
});

describe('extending a silence', () => {
  it('moves its end later, recording who extended it and the end it had', () => {
    expect(extendedSilence(silence(), '2h', AT + 30 * MINUTE, 'bob')).toEqual(
      silence({ to: AT + 240 * MINUTE, extended: [{ at: AT + 30 * MINUTE, by: 'bob', from: AT + 120 * MINUTE }] }),
    );
  });

  it('keeps a silence that includes pages within four hours of the last decision', () => {
    const pages = silence({ includePages: true });

    expect(extendedSilence(pages, '2h', AT + 60 * MINUTE, 'bob').to).toBe(AT + 240 * MINUTE);
    expect(problemsOf(() => extendedSilence(pages, '3h', AT + 30 * MINUTE, 'bob'))).toContain(
      'more than 4h from now, the most a silence that includes pages may have left',
    );
  });

  it('refuses to extend a silence that has ended', () => {
    expect(problemsOf(() => extendedSilence(silence(), '1h', AT + 121 * MINUTE, 'bob'))).toMatch(/already ended/);
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

  it('extends by id, and not a silence that has ended', async () => {
    const store = new MemorySilences();
    await store.add(silence());

    const extended = await store.extend('a1b2c3d4', '1h', AT + MINUTE, 'bob');
    const gone = await store.extend('a1b2c3d4', '1h', AT + 200 * MINUTE, 'bob');

    expect([extended?.to, gone, (await store.endingAfter(AT + 150 * MINUTE)).map((s) => s.id)]).toEqual([
      AT + 180 * MINUTE,
      undefined,
      ['a1b2c3d4'],
    ]);
  });

  it('refuses a second silence with the same id', async () => {
    const store = new MemorySilences();
    await store.add(silence());

    await expect(store.add(silence())).rejects.toThrow(SilenceError);
  });
});
