import { fillPlaceholders } from '../engine/hint-scope.ts';
import type { Notification } from '../engine/notification.ts';
import type { RuleSet } from '../engine/rule-set.ts';
import type { DigestIncident, LatentRisk } from './digest.ts';

export interface LatentRiskInput {
  readonly incidents: readonly DigestIncident[];
  /** The week's pages, to say when a precursor's outage already happened. */
  readonly pages: readonly Notification[];
  readonly ruleSet: RuleSet;
  /** A ticket open at least this long is a risk, not a blip. */
  readonly minOpenMs: number;
  readonly runbookBaseUrl: string;
}

/**
 * Tickets that stayed open for long, with what they can turn into: a webhook-latency-tax ticket open all week is the
 * warning the OPA outage gave for days before webhook-blackhole paged. Precursors of a page come first.
 */
export function latentRisks(input: LatentRiskInput): LatentRisk[] {
  return input.incidents
    .filter((incident) => incident.severity === 'ticket' && incident.openForMs >= input.minOpenMs)
    .map((incident): LatentRisk => {
      const rule = input.ruleSet.get(incident.rule);
      const precursorOf = input.ruleSet.rules
        .filter((r) => r.severity === 'page' && input.ruleSet.explains(r.id, incident.rule))
        .map((r) => r.id);
      const pagedThisWeek = precursorOf.filter((id) =>
        input.pages.some((page) => page.rule === id && page.clusters.some((c) => incident.clusters.includes(c))),
      );
      return {
        incident: incident.id,
        rule: incident.rule,
        title: incident.title,
        clusters: incident.clusters,
        openedAt: incident.openedAt,
        openForMs: incident.openForMs,
        stillOpen: incident.status === 'open',
        precursorOf,
        pagedThisWeek,
        // The digest covers many clusters: a hint's {placeholders} stay named.
        fix: fillPlaceholders(rule?.hints[0]?.text ?? '', []),
        runbook: rule ? `${input.runbookBaseUrl}${rule.runbook}` : '',
      };
    })
    .sort((a, b) => b.precursorOf.length - a.precursorOf.length || b.openForMs - a.openForMs);
}
