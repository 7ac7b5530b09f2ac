import type { Incident } from '../../../shared/engine/incident.ts';
import { type CorrelateInput, correlate } from '../../../shared/engine/stages/correlate.ts';
import type { Finding } from '../../../shared/engine/stages/evaluate.ts';
import { flagRule, minuteIso, minuteMs, openIncident, ruleSetOf } from '../../support/engine-fixtures.ts';

const ruleSet = ruleSetOf(
  flagRule('cause', 'webhook.p99', { explains: ['symptom', 'context'] }),
  flagRule('symptom', 'nodes.replaced'),
  flagRule('context', 'apiserver.5xx', { severity: 'ticket' }),
  flagRule('other', 'apiserver.429'),
);
const met = (rule: string): Finding => ({ cluster: 'dev-a', rule, verdict: 'met', evidence: [], lacking: [] });

/** Correlate the met findings of `rules` on dev-a at `minute`, over its open incidents. */
const run = (
  minute: number,
  rules: readonly string[],
  open: readonly Incident[] = [],
  fields: Partial<CorrelateInput> = {},
) =>
  correlate({
    at: minuteMs(minute),
    cluster: 'dev-a',
    ruleSet,
    rules: ruleSet.forCluster([]),
    firing: rules.map(met),
    open,
    ...fields,
  });

describe('the correlate stage', () => {
  it('opens an incident for a finding that no open incident explains, to be placed in a fleet incident', () => {
    const out = run(3, ['other']);

    expect([out.incidents.map((i) => [i.id, i.status, i.firingSince]), [...out.regroup]]).toEqual([
      [[`dev-a/other/${minuteIso(3)}`, 'open', minuteIso(3)]],
      [`dev-a/other/${minuteIso(3)}`],
    ]);
  });

  it('attaches a page-level finding that an open root explains as a symptom, with a change to announce', () => {
    const host = openIncident('dev-a', 'cause', 0);
    const out = run(5, ['symptom'], [host]);

    expect([out.incidents.map((i) => i.symptoms), [...out.changes]]).toEqual([
      [['symptom']],
      [[host.id, { reason: 'new-symptom', texts: ['new symptom: symptom'] }]],
    ]);
  });

  it('attaches a ticket-level symptom without anything to announce', () => {
    const out = run(5, ['context'], [openIncident('dev-a', 'cause', 0)]);

    expect([out.incidents.map((i) => i.symptoms), out.changes.size]).toEqual([[['context']], 0]);
  });

  it('escalates a ticket whose page-level symptom attaches, and has it placed again', () => {
    const host = openIncident('dev-a', 'cause', 0, { severity: 'ticket' });
    const out = run(5, ['symptom'], [host]);

    expect([out.incidents.map((i) => i.severity), [...out.regroup]]).toEqual([['page'], [host.id]]);
  });

  it('leaves alone a finding that is already a member of an open incident', () => {
    const host = openIncident('dev-a', 'cause', 0, { symptoms: ['symptom'] });
    const out = run(5, ['cause', 'symptom'], [host]);

    expect([out.incidents, out.changes.size, out.regroup.size]).toEqual([[host], 0, 0]);
  });

  it('re-roots a young incident on a cause that shows itself later, and merges the others it explains', () => {
    const first = openIncident('dev-a', 'symptom', 2);
    const second = openIncident('dev-a', 'context', 4, { severity: 'ticket' });
    const out = run(10, ['cause'], [first, second]);

    expect(out.incidents.map((i) => [i.id, i.rule, i.status, i.mergedInto, i.symptoms])).toEqual([
      [first.id, 'cause', 'open', undefined, ['symptom', 'context']],
      [second.id, 'context', 'resolved', first.id, []],
    ]);
  });

  it('says which cause replaced which root, and has the re-rooted incident placed again', () => {
    const first = openIncident('dev-a', 'symptom', 2);
    const out = run(10, ['cause'], [first]);

    expect([out.changes.get(first.id), [...out.regroup]]).toEqual([
      { reason: 'cause-identified', texts: ['cause identified: cause (was symptom)'] },
      [first.id],
    ]);
  });

  it('opens a separate incident for a cause that shows itself more than 30 minutes after its symptom', () => {
    const old = openIncident('dev-a', 'symptom', 0);
    const out = run(31, ['cause'], [old]);

    expect(out.incidents.map((i) => [i.rule, i.status])).toEqual([
      ['symptom', 'open'],
      ['cause', 'open'],
    ]);
  });
});
