import { checkExpectations, describeExpectation } from '../../shared/scenario/expectations.ts';
import type { Expectation } from '../../shared/scenario/scenario.ts';
import { notificationAt, only } from '../support/engine-fixtures.ts';

const T = (time: string) => Date.parse(`2019-03-04T${time}Z`);

const page = notificationAt({ at: '2019-03-04T09:32:00Z', kind: 'page', rule: 'webhook-blackhole' });
const update = notificationAt({
  at: '2019-03-04T09:44:00Z',
  kind: 'update',
  rule: 'webhook-blackhole',
  clusters: ['dev-a', 'dev-b'],
});
const ticket = notificationAt({ at: '2019-03-04T10:00:00Z', kind: 'ticket', rule: 'node-churn', clusters: ['dev-b'] });
const SENT = [page, update, ticket];

function check(expectation: Omit<Expectation, 'path'>) {
  return only(checkExpectations([{ path: '$.expect[0]', ...expectation }], SENT));
}

describe('checkExpectations', () => {
  it('passes a count that matches exactly', () => {
    expect(check({ cluster: 'dev-a', rule: 'webhook-blackhole', count: 2 })).toMatchObject({
      passed: true,
      detail: 'expected 2, got 2',
    });
  });

  it('fails a count that does not match and says how many it got', () => {
    expect(check({ cluster: 'dev-a', kind: 'page', count: 0 })).toMatchObject({
      passed: false,
      detail: 'expected 0, got 1',
    });
  });

  it('passes a count of 0 when nothing matches', () => {
    expect(check({ cluster: 'dev-c', count: 0 }).passed).toBe(true);
  });

  it('matches a notification on any of the clusters it lists', () => {
    expect(check({ cluster: 'dev-b', kind: 'update', count: 1 }).passed).toBe(true);
  });

  it('matches any rule and any kind when the expectation names neither', () => {
    expect(check({ cluster: 'dev-b', count: 2 }).passed).toBe(true);
  });

  it('fails an expectation without count when nothing matches', () => {
    expect(check({ cluster: 'dev-a', kind: 'resolve' })).toMatchObject({
      passed: false,
      detail: 'expected at least one, got none',
    });
  });

  it('passes a first match between after and before', () => {
    expect(check({ cluster: 'dev-a', kind: 'page', after: T('09:30:00'), before: T('09:33:00') })).toMatchObject({
      passed: true,
      detail: 'first at 2019-03-04T09:32:00Z',
    });
  });

  it('includes both bounds', () => {
    expect(check({ cluster: 'dev-a', kind: 'page', after: T('09:32:00'), before: T('09:32:00') }).passed).toBe(true);
  });

  it('fails a first match earlier than after', () => {
    expect(check({ cluster: 'dev-a', kind: 'page', after: T('09:33:00') })).toMatchObject({
      passed: false,
      detail: 'first at 2019-03-04T09:32:00Z, earlier than 2019-03-04T09:33:00Z',
    });
  });

  it('fails a first match later than before', () => {
    expect(check({ cluster: 'dev-a', kind: 'page', before: T('09:31:00') })).toMatchObject({
      passed: false,
      detail: 'first at 2019-03-04T09:32:00Z, later than 2019-03-04T09:31:00Z',
    });
  });

  it('bounds only the first match', () => {
    expect(check({ cluster: 'dev-a', rule: 'webhook-blackhole', after: T('09:40:00') }).passed).toBe(false);
  });

  it('reports detection latency as first match minus onset', () => {
    expect(check({ cluster: 'dev-a', kind: 'page', onset: T('09:30:00') }).latencyMs).toBe(2 * 60_000);
  });

  it('reports no latency when nothing matched', () => {
    expect(check({ cluster: 'dev-a', kind: 'resolve', onset: T('09:30:00') })).not.toHaveProperty('latencyMs');
  });

  it('keeps the first match for the report', () => {
    expect(check({ cluster: 'dev-b' }).firstMatch).toBe(update);
  });

  it('checks every expectation in order', () => {
    const results = checkExpectations(
      [
        { cluster: 'dev-a', kind: 'page', count: 1, path: '$.expect[0]' },
        { cluster: 'dev-a', kind: 'ticket', path: '$.expect[1]' },
      ],
      SENT,
    );

    expect(results.map((r) => [r.expectation.path, r.passed])).toEqual([
      ['$.expect[0]', true],
      ['$.expect[1]', false],
    ]);
  });
});

describe('describeExpectation', () => {
  it('names kind, rule and cluster', () => {
    expect(describeExpectation({ cluster: 'dev-a', rule: 'node-churn', kind: 'ticket', path: '$' })).toBe(
      'ticket of node-churn on dev-a',
    );
  });

  it('puts the count first', () => {
    expect(describeExpectation({ cluster: 'dev-a', count: 0, path: '$' })).toBe('0 × notification on dev-a');
  });
});
