import type { Incident } from '../engine/incident.ts';
import { formatMatcher } from '../engine/matchers.ts';
import { type Silence, silencesDuring } from '../pipeline/silence.ts';
import { isoSeconds } from '../time.ts';
import type { DigestSilence } from './digest.ts';
import type { DigestWeek } from './iso-week.ts';

/**
 * The silences that held at any time of the week, earliest first, each with who added it and the incidents it held
 * back: those whose record names it (`mutedBy.silence`), and whether on-call was shown them later (the silence
 * ended, or a severe outage broke through).
 */
export function digestSilences(
  silences: readonly Silence[],
  incidents: readonly Incident[],
  week: DigestWeek,
): DigestSilence[] {
  return silencesDuring(silences, week.from, week.to)
    .sort((a, b) => a.from - b.from || a.id.localeCompare(b.id))
    .map((silence) => ({
      id: silence.id,
      ...(silence.cluster !== undefined && { cluster: silence.cluster }),
      ...(silence.rule !== undefined && { rule: silence.rule }),
      ...(silence.matchers && { matchers: silence.matchers.map(formatMatcher) }),
      ...(silence.includePages && { includePages: true }),
      from: isoSeconds(silence.from),
      to: isoSeconds(silence.to),
      author: silence.author,
      reason: silence.reason,
      ...(silence.expired && { expired: { at: isoSeconds(silence.expired.at), by: silence.expired.by } }),
      heldBack: incidents
        .filter((incident) => incident.mutedBy?.silence === silence.id)
        .map((incident) => ({
          incident: incident.id,
          cluster: incident.cluster,
          rule: incident.rule,
          severity: incident.severity,
          ...(incident.notifiedAt !== undefined && { shownAt: incident.notifiedAt }),
        })),
    }));
}
