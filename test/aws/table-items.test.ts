import { describe, expect, it } from '@jest/globals';
import {
  decodeItem,
  decodeJson,
  incidentItem,
  MalformedItemError,
  outboxItem,
  pollLogItem,
  stepOutcome,
} from '../../aws/dynamodb/table-items.ts';
import { openIncidentKey, outboxKey, pollLogKey, stepKey } from '../../aws/dynamodb/table-keys.ts';
import type { Evidence } from '../../shared/engine/evaluate-condition.ts';
import { SentinelError } from '../../shared/errors.ts';
import { minuteIso, notificationAt, openIncident } from '../support/engine-fixtures.ts';

const page = notificationAt({ at: '2026-11-20T10:00:00Z', kind: 'page', rule: 'webhook-blackhole' });
const outboxItemOf = (fields: Record<string, unknown>) => ({
  ...outboxKey(page.id),
  notification: page,
  status: 'pending',
  attempts: 0,
  ...fields,
});

describe('the table item codecs', () => {
  it('read back an incident with its fleet incident, its recovery and the mute that holds it', () => {
    const incident = openIncident('dev-b', 'webhook-blackhole', 6, {
      group: { id: `dev-a/webhook-blackhole/${minuteIso(0)}`, openedAt: minuteIso(0) },
      recoveredAt: minuteIso(40),
      firingSince: minuteIso(6),
      mutedBy: { reason: 'upgrade', author: 'platform team', until: minuteIso(60) },
    });

    expect(decodeItem(incidentItem, { ...openIncidentKey(incident.id), incident }).incident).toEqual(incident);
  });

  it('read an incident stored before fleet incidents and maintenance grace existed', () => {
    const { firingSince: _since, ...stored } = openIncident('dev-a', 'webhook-blackhole', 0);

    expect(decodeItem(incidentItem, { ...openIncidentKey(stored.id), incident: stored }).incident).toEqual(stored);
  });

  describe('evidence and the condition it names', () => {
    const seen = {
      what: 'apiserver.5xx / apiserver.requests',
      over: '1h vs the 6h before, counts pooled, delta at its 99.9 % lower bound',
      observed: 0.021,
      op: '>=' as const,
      threshold: 0.005,
      unit: 'ratio',
      passed: true,
    };
    const decoded = (item: Record<string, unknown>) => {
      const incident = openIncident('dev-a', 'apiserver-sustained-errors', 0, {
        evidence: { 'apiserver-sustained-errors': [item as unknown as Evidence] },
      });
      return decodeItem(incidentItem, { ...openIncidentKey(incident.id), incident }).incident.evidence[
        'apiserver-sustained-errors'
      ]?.[0];
    };

    it('read back the kind of condition and the operand a piece of evidence names', () => {
      const item = { ...seen, condition: { kind: 'change', of: { ratio: ['apiserver.5xx', 'apiserver.requests'] } } };

      expect(decoded(item)).toEqual(item);
    });

    it('read evidence stored before evidence named its condition', () => {
      expect(decoded(seen)).toEqual(seen);
    });

    it('drop a condition of a kind this version does not know, keeping the evidence', () => {
      const item = { ...seen, condition: { kind: 'forecast', of: 'apiserver.5xx' } };

      expect(decoded(item)).toEqual(seen);
    });
  });

  it('read back the notification an outbox item holds', () => {
    const decoded = decodeItem(outboxItem, outboxItemOf({ status: 'delivered', attempts: 2, deliveredAt: 5 }));

    expect(decoded).toEqual({ notification: page, status: 'delivered', attempts: 2, deliveredAt: 5 });
  });

  it('keep a field of a stored notification that this version does not know', () => {
    const decoded = decodeItem(outboxItem, outboxItemOf({ notification: { ...page, escalationPolicy: 'tier-2' } }));

    expect(decoded.notification).toEqual({ ...page, escalationPolicy: 'tier-2' });
  });

  it('name the item and the attribute when an outbox item has a status no version writes', () => {
    const decoding = () => decodeItem(outboxItem, outboxItemOf({ status: 'lost' }));

    expect(decoding).toThrow(MalformedItemError);
    expect(decoding).toThrow(`table item {"pk":"OUTBOX","sk":"${page.id}"} cannot be read:\n  - $.status: `);
  });

  describe('poll records', () => {
    const at = Date.parse('2026-11-20T10:00:00Z');
    const stored = {
      at,
      owner: 'request-1',
      claim: 'claimed',
      startedAt: at + 183_000,
      lateMs: 3_000,
      durationMs: 4_200,
      clusters: 6_000,
      polled: 6_000,
      metricsRequested: 84_000,
      findings: 0,
      created: 0,
      delivered: 0,
      deliveryFailures: 0,
      unreadableClusters: 0,
      nearMisses: [],
    };
    const decoded = (record: object) => decodeItem(pollLogItem, { ...pollLogKey(at, 'request-1'), record }).record;

    it('read back the shards a poll dealt its step into', () => {
      expect(decoded({ ...stored, shards: 3 })).toEqual({ ...stored, shards: 3 });
    });

    it('read a poll record stored before the shards were counted', () => {
      expect(decoded(stored)).toEqual(stored);
    });

    it('name a count of shards that is not a number', () => {
      expect(() => decoded({ ...stored, shards: 'three' })).toThrow('  - $.record.shards: ');
    });
  });

  it('name the path inside a poll record that is missing a field', () => {
    const at = Date.parse('2026-11-20T10:00:00Z');
    const item = { ...pollLogKey(at, 'request-1'), record: { at, owner: 'request-1', claim: 'claimed' } };

    const decoding = () => decodeItem(pollLogItem, item);

    expect(decoding).toThrow(
      /^table item \{"pk":"POLLLOG","sk":"2026-11-20T10:00:00.000Z#request-1"\} cannot be read:/,
    );
    expect(decoding).toThrow('  - $.record.startedAt: ');
  });

  it('name the step whose parts do not add up to JSON', () => {
    const at = Date.parse('2026-11-20T10:00:00Z');

    const decoding = () => decodeJson(stepOutcome, '{"at":1,"changed":[', stepKey(at));

    expect(decoding).toThrow(
      /^table item \{"pk":"STEP","sk":"2026-11-20T10:00:00.000Z"\} cannot be read:\n {2}- \$: not valid JSON: /,
    );
  });

  it('raise an error the commands report as an expected failure, not a bug', () => {
    const decoding = () => decodeItem(outboxItem, outboxItemOf({ notification: 'not a notification' }));

    expect(decoding).toThrow(SentinelError);
  });
});
