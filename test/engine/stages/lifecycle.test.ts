import type { Verdict } from '../../../shared/engine/evaluate-condition.ts';
import type { Incident } from '../../../shared/engine/incident.ts';
import { advanceLifecycle } from '../../../shared/engine/stages/lifecycle.ts';
import { flagRule, minuteIso, minuteMs, only, openIncident, ruleSetOf } from '../../support/engine-fixtures.ts';

const ruleSet = ruleSetOf(
  flagRule('cause', 'webhook.p99', { explains: ['symptom', 'context'], holdDown: '5m' }),
  flagRule('symptom', 'nodes.replaced'),
  flagRule('context', 'apiserver.5xx', { severity: 'ticket' }),
);
const evidence = [
  { what: 'w', over: 'o', observed: 1, op: '>=' as const, threshold: 1, unit: 'seconds', passed: true },
];

/** Advance one incident at `minute` with these verdicts (a rule not named was not read at this step). */
const advance = (incident: Incident, minute: number, verdicts: Record<string, Verdict>) =>
  only(
    advanceLifecycle({
      at: minuteMs(minute),
      incidents: [incident],
      findings: Object.entries(verdicts).map(([rule, verdict]) => ({
        cluster: incident.cluster,
        rule,
        verdict,
        evidence: verdict === 'met' ? evidence : [],
        lacking: [],
      })),
      rules: ruleSet.forCluster([]),
    }),
  );

describe('the lifecycle stage', () => {
  it('leaves an incident as it is when the step did not read its rule, as a minute read leaves out long windows', () => {
    const clearing = openIncident('dev-a', 'context', 0, { clearSince: minuteIso(3) });

    const next = advance(clearing, 30, { cause: 'unmet', symptom: 'unmet' });

    expect(next).toBe(clearing);
  });

  it('still recovers that incident at the next step that reads its rule', () => {
    const clearing = openIncident('dev-a', 'context', 0, { clearSince: minuteIso(3) });

    const next = advance(clearing, 30, { context: 'unmet' });

    expect(next.recoveredAt).toBe(minuteIso(30));
  });

  it('keeps a firing incident open and keeps the evidence of each member that fires', () => {
    const next = advance(openIncident('dev-a', 'cause', 0), 1, { cause: 'met' });

    expect([next.status, next.clearSince, next.evidence]).toEqual(['open', undefined, { cause: evidence }]);
  });

  it('starts the hold-down when the root and its page-level symptoms go clear', () => {
    const next = advance(openIncident('dev-a', 'cause', 0), 3, { cause: 'unmet' });

    expect([next.status, next.clearSince, next.recoveredAt]).toEqual(['open', minuteIso(3), undefined]);
  });

  it('marks the incident recovered, still open, once it has been clear for the hold-down', () => {
    const clearing = openIncident('dev-a', 'cause', 0, { clearSince: minuteIso(3) });
    const next = advance(clearing, 8, { cause: 'unmet' });

    expect([next.status, next.recoveredAt]).toEqual(['open', minuteIso(8)]);
  });

  it('counts a flap, and counts the firing time afresh, when it fires again within the hold-down', () => {
    const clearing = openIncident('dev-a', 'cause', 0, { clearSince: minuteIso(3) });
    const next = advance(clearing, 5, { cause: 'met' });

    expect([next.flaps, next.clearSince, next.firingSince]).toEqual([1, undefined, minuteIso(5)]);
  });

  it('takes a recovered incident back when it fires again', () => {
    const recovered = openIncident('dev-a', 'cause', 0, { clearSince: minuteIso(3), recoveredAt: minuteIso(8) });
    const next = advance(recovered, 9, { cause: 'met' });

    expect([next.recoveredAt, next.flaps]).toEqual([undefined, 1]);
  });

  it('restarts the hold-down when data goes missing', () => {
    const clearing = openIncident('dev-a', 'cause', 0, { clearSince: minuteIso(3) });
    const next = advance(clearing, 5, { cause: 'unknown' });

    expect(next.clearSince).toBeUndefined();
  });

  it('keeps an incident open while a page-level symptom fires after its root went clear', () => {
    const next = advance(openIncident('dev-a', 'cause', 0, { symptoms: ['symptom'] }), 3, {
      cause: 'unmet',
      symptom: 'met',
    });

    expect(next.clearSince).toBeUndefined();
  });

  it('lets a ticket-level symptom not hold a page open', () => {
    const next = advance(openIncident('dev-a', 'cause', 0, { symptoms: ['context'] }), 3, {
      cause: 'unmet',
      context: 'met',
    });

    expect(next.clearSince).toBe(minuteIso(3));
  });

  it('returns an incident it does not change as it was', () => {
    const clearing = openIncident('dev-a', 'cause', 0, { clearSince: minuteIso(3) });

    expect(advance(clearing, 4, { cause: 'unmet' })).toBe(clearing);
  });
});
